"""Lease fencing against a slow API server, end to end: two ``toposched controller`` processes
while gangs come and go; every request of the leader is made slower than its lease, over and
over. No write may land while the writer does not hold the lease.

On the API server double: it can be made slow for one client (``slow``, by bearer token), and it
honours a write's deadline (its ``timeout``, counted from when the request was received) as the API
server does; a real server cannot be made slow for one client. The other way a leader loses its
lease, paused while another takes over, runs on the real API server (``test_real_fencing``).

The check (``fencing_check``) reads the server's own record, not the replicas': every write it
applied (its resourceVersion and the caller) and the Lease's history.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.controller.cluster import TOPOLOGY, kueue_pod, node
from tests.controller.fencing_check import Replica, handovers, writes_by_non_holders
from tests.controller.kube_test_server import KubeTestServer
from tests.controller.kubeconfig import write_kubeconfig

from toposched.controller.keys import is_gated
from toposched.controller.kubeapi import KUEUE_TOPOLOGIES, LEASES, NODES, PODS, Object
from toposched.wire.kueue import topology_object

LEASE = ("toposched-ungater", "toposched-system")
REPLICAS = ("a", "b")  # each replica's identity, and its bearer token
HANDOVERS = 12


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
        while handovers(server.lease_holders(*LEASE)) < HANDOVERS:
            old = holder(server)
            other = next(n for n in REPLICAS if n != old)
            time.sleep(rng.uniform(0.5, 1.5))  # somewhere in the leader's work
            server.slow[old] = 3.0  # every request of the leader is slower than its lease
            taken_over(server, other, f"the slowed {old}")
            time.sleep(3.0)  # the new leader acts meanwhile
            server.slow.pop(old)
            for replica in processes.values():
                assert replica.alive(), replica.log.read_text()[-3000:]
    finally:
        churn.stop.set()
        churn.join()
    violations, checked = writes_by_non_holders(server.writes, server.lease_holders(*LEASE), REPLICAS)
    assert violations == [], "\n".join(violations[:20])
    assert handovers(server.lease_holders(*LEASE)) >= HANDOVERS
    by_replica = {n: sum(1 for w in server.writes if w.user == n and w.resource == "pods") for n in REPLICAS}
    assert checked > 100 and min(by_replica.values()) > 20, by_replica  # both wrote, often
    assert churn.made > 40  # gangs kept coming, and were placed
