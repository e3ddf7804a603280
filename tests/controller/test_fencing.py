"""Lease fencing, end to end: two ``toposched controller`` processes against a slow API server,
while gangs come and go; the leader is paused (SIGSTOP, later SIGCONT) or its requests are made
slower than its lease, over and over. No write may land while the writer does not hold the lease.

The check reads the server's own records, not the replicas': the audit record of every write it
applied (its resourceVersion and the caller) and the Lease's history (each holder and the
resourceVersion it got). As resourceVersions order every change of the server, the holder when
a write landed is the holder of the Lease's last version before it.

The replicas reach the server through a kubeconfig each (a bearer token per replica), so the same
test can be pointed at a real API server with token authentication: its audit log gives the
writes (user, verb, object, the resourceVersion in the response) and the Lease's versions, and a
delaying proxy in front of it slows one replica. Here it runs against the test double, which
serves with latency, can slow one user down and honours a write's deadline as the API server does.
"""

from __future__ import annotations

import itertools
import os
import random
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.controller.cluster import TOPOLOGY, kueue_pod, node
from tests.controller.kube_test_server import KubeTestServer, Write
from tests.controller.kubeconfig import write_kubeconfig

from toposched.controller.keys import is_gated
from toposched.controller.kubeapi import KUEUE_TOPOLOGIES, LEASES, NODES, PODS, Object
from toposched.wire.kueue import topology_object

ROOT = Path(__file__).resolve().parents[2]
LEASE = ("toposched-ungater", "toposched-system")
REPLICAS = ("a", "b")  # each replica's identity, and its bearer token
HANDOVERS = 24
LEASE_DURATION, RENEW_DEADLINE, RETRY_PERIOD = 2, 1.2, 0.2


class Replica:
    """One ``toposched controller`` process."""

    def __init__(self, name: str, kubeconfig: Path, log: Path) -> None:
        self.name, self.log = name, log
        command = [
            sys.executable,
            "-c",
            "from toposched.cli.main import app; app(prog_name='toposched')",
            "controller",
            f"--kubeconfig={kubeconfig}",
            f"--identity={name}",
            "--metrics-port=0",
            "--interval=0.05",
            f"--lease-duration={LEASE_DURATION}",
            f"--renew-deadline={RENEW_DEADLINE}",
            f"--retry-period={RETRY_PERIOD}",
        ]
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT)])}
        with log.open("w") as out:
            self.process = subprocess.Popen(command, env=env, stdout=out, stderr=subprocess.STDOUT)

    def signal(self, number: int) -> None:
        if self.process.poll() is None:
            os.kill(self.process.pid, number)

    def stop(self) -> None:
        self.signal(signal.SIGCONT)
        self.signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


class Churn(threading.Thread):
    """Gangs of two pods coming and going, as their owners and the kubelet would have them: made
    gated, bound once ungated, finished and deleted a moment later."""

    def __init__(self, server: KubeTestServer) -> None:
        super().__init__(name="churn", daemon=True)
        self.server, self.stop, self.made = server, threading.Event(), 0
        self.running: dict[str, float] = {}  # gang -> when it started running

    def run(self) -> None:
        while not self.stop.wait(0.2):
            live = {p["metadata"]["labels"]["kueue.x-k8s.io/pod-group-name"] for p in self._pods()}
            if len(live) < 6:
                self.made += 1
                for i in range(2):
                    self.server.add(PODS, kueue_pod(f"g{self.made}-{i}", f"g{self.made}", total=2))
            self._bind_and_finish()

    def _pods(self) -> list[Object]:
        return self.server.store.list(PODS, "default", lambda _: True)[0]

    def _bind_and_finish(self) -> None:
        by_gang: dict[str, list[Object]] = {}
        for pod in self._pods():
            by_gang.setdefault(pod["metadata"]["labels"]["kueue.x-k8s.io/pod-group-name"], []).append(pod)
        now = time.monotonic()
        for gang, pods in by_gang.items():
            if any(is_gated(p) for p in pods):
                continue
            if gang not in self.running:
                self.running[gang] = now
                for pod in pods:
                    self.server.change(PODS, pod["metadata"]["name"], _bound)
            elif now - self.running[gang] > 1.0:
                del self.running[gang]
                for pod in pods:
                    self.server.remove(PODS, pod["metadata"]["name"])


def _bound(pod: Object) -> Object:
    pod["spec"]["nodeName"] = pod["spec"]["nodeSelector"]["kubernetes.io/hostname"]
    pod["status"] = {"phase": "Running"}
    return pod


def holder(server: KubeTestServer) -> str:
    try:
        lease = server.object(LEASES, *LEASE)
    except Exception:  # not created yet
        return ""
    return str((lease.get("spec") or {}).get("holderIdentity") or "")


def wait_for(condition: Any, what: str, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"gave up after {timeout:g} s waiting until {what}")
        time.sleep(0.02)


def taken_over(server: KubeTestServer, new: str, old: str) -> None:
    wait_for(lambda: holder(server) == new, f"{new} takes over from {old}")


def writes_by_non_holders(writes: list[Write], history: list[tuple[int, str]]) -> tuple[list[str], int]:
    """Each replica write the server applied while the writer did not hold the lease (by the
    Lease's ``history``: each version's resourceVersion and holder), and how many there were."""
    found, checked = [], 0
    for write in writes:
        if write.resource == "leases" or write.user not in REPLICAS:
            continue
        checked += 1
        before = [who for version, who in history if version < write.resource_version]
        held_by = before[-1] if before else ""
        if held_by != write.user:
            found.append(f"{write} landed while the lease was held by {held_by!r}")
    return found, checked


def handovers(server: KubeTestServer) -> int:
    holders = [who for _, who in server.lease_holders(*LEASE) if who]
    return sum(1 for first, second in itertools.pairwise(holders) if first != second)


@pytest.fixture
def replicas(tmp_path: Path) -> Iterator[tuple[KubeTestServer, dict[str, Replica]]]:
    server = KubeTestServer().start()
    server.latency = 0.05  # a slow API server: every request waits
    server.add(KUEUE_TOPOLOGIES, topology_object(TOPOLOGY))
    for i in range(12):
        server.add(NODES, node(i))
    started: dict[str, Replica] = {}
    try:
        for name in REPLICAS:
            kubeconfig = write_kubeconfig(tmp_path / f"kubeconfig-{name}", server.url, token=name)
            started[name] = Replica(name, kubeconfig, tmp_path / f"replica-{name}.log")
        yield server, started
    finally:
        for replica in started.values():
            replica.stop()
        server.stop()


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_no_write_lands_from_a_replica_that_does_not_hold_the_lease(
    replicas: tuple[KubeTestServer, dict[str, Replica]],
) -> None:
    server, processes = replicas
    churn = Churn(server)
    churn.start()
    rng = random.Random(22)
    try:
        wait_for(lambda: holder(server) in REPLICAS, "a replica holds the lease")
        while handovers(server) < HANDOVERS:
            old = holder(server)
            other = next(n for n in REPLICAS if n != old)
            time.sleep(rng.uniform(0.5, 1.5))  # somewhere in the leader's work
            if handovers(server) % 2 == 0:  # the leader stops, and wakes up after a takeover
                processes[old].signal(signal.SIGSTOP)
                taken_over(server, other, f"the paused {old}")
                time.sleep(3.0)  # the new leader acts meanwhile
                processes[old].signal(signal.SIGCONT)
            else:  # every request of the leader is slower than its lease
                server.slow[old] = 3.0
                taken_over(server, other, f"the slowed {old}")
                time.sleep(3.0)
                server.slow.pop(old)
            for replica in processes.values():
                assert replica.process.poll() is None, replica.log.read_text()[-3000:]
    finally:
        churn.stop.set()
        churn.join()
    violations, checked = writes_by_non_holders(server.writes, server.lease_holders(*LEASE))
    assert violations == [], "\n".join(violations[:20])
    assert handovers(server) >= HANDOVERS
    by_replica = {n: sum(1 for w in server.writes if w.user == n and w.resource == "pods") for n in REPLICAS}
    assert checked > 100 and min(by_replica.values()) > 20, by_replica  # both wrote, often
    assert churn.made > 40  # gangs kept coming, and were placed
