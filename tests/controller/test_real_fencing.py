"""Lease fencing on the real API server, end to end: two ``toposched controller`` processes, each
the ungater's ServiceAccount with a token of its own, while gangs come and go; the leader is
paused (SIGSTOP) until the other replica has taken over and acted, then woken (SIGCONT), over and
over. No write may land while the writer does not hold the lease.

The check (``fencing_check``) reads the server's audit log, not the replicas': every pod write it
applied (the token that made it and the resourceVersion in its response) and every version of the
Lease (the holder in its response). A leader slowed down rather than paused needs a server that is
slow for one client, which runs on the double (``test_fencing``).
"""

from __future__ import annotations

import random
import signal
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from tests.controller.cluster import kueue_pod
from tests.controller.fencing_check import Replica, handovers, writes_by_non_holders
from tests.controller.kube_test_requests import Write
from tests.controller.real_audit import credential_of
from tests.controller.real_cluster import CONTROLLER_NAMESPACE, RACK, ControllerAccounts, RealCluster
from tests.realkube.audit import read_events
from tests.realkube.control_plane import ControlPlane

from toposched.controller.keys import is_gated
from toposched.controller.kubeapi import LEASES, PODS, ApiNotFoundError, Object
from toposched.controller.modes import Mode
from toposched.wire.lease import parse_lease

REPLICAS = ("a", "b")
HANDOVERS = 20  # each checked; test_fencing.py adds 12 more with the leader slowed on the double
GANG = "kueue.x-k8s.io/pod-group-name"


class Churn(threading.Thread):
    """Gangs of two pods coming and going, as their owners, kube-scheduler and the kubelet would
    have them: made gated, bound and Running once ungated, gone a moment later."""

    def __init__(self, plane: ControlPlane, run: str) -> None:
        super().__init__(name="churn", daemon=True)
        self.cluster = RealCluster(plane, run)  # the test's share, through a client of its own
        self.stop, self.made = threading.Event(), 0
        self.running: dict[str, float] = {}  # gang -> when it started running

    def run(self) -> None:
        try:
            while not self.stop.wait(0.2):
                pods = self._pods()
                if len({p["metadata"]["labels"][GANG] for p in pods}) < 6:
                    self.made += 1
                    for i in range(2):
                        self.cluster.create(PODS, kueue_pod(f"g{self.made}-{i}", f"g{self.made}", level=RACK))
                self._bind_and_finish(pods)
        finally:
            self.cluster.admin.close()

    def _pods(self) -> list[Object]:
        listed = self.cluster.admin.list(PODS, self.cluster.namespace).items
        return [p for p in listed if "deletionTimestamp" not in p["metadata"]]

    def _bind_and_finish(self, pods: list[Object]) -> None:
        by_gang: dict[str, list[Object]] = {}
        for pod in pods:
            by_gang.setdefault(pod["metadata"]["labels"][GANG], []).append(pod)
        now = time.monotonic()
        for gang, members in by_gang.items():
            if any(is_gated(p) for p in members):
                continue
            names = [p["metadata"]["name"] for p in members]
            if gang not in self.running:
                self.running[gang] = now
                for name in names:
                    self.cluster.bind(name)
            elif now - self.running[gang] > 1.0:
                del self.running[gang]
                for name in names:
                    self.cluster.finish(name)


def holder(cluster: RealCluster) -> str:
    try:
        return parse_lease(cluster.admin.get(LEASES, cluster.lease, CONTROLLER_NAMESPACE)).holder
    except ApiNotFoundError:
        return ""


def wait_for(condition: Callable[[], bool], what: str, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"gave up after {timeout:g} s waiting until {what}")
        time.sleep(0.05)


def taken_over(cluster: RealCluster, new: str, old: str) -> None:
    wait_for(lambda: holder(cluster) == new, f"{new} takes over from the paused {old}")


def record(
    plane: ControlPlane, cluster: RealCluster, replicas: dict[str, str]
) -> tuple[list[Write], list[tuple[int, str]]]:
    """The replicas' pod writes the server applied, and the Lease's versions, from the audit log
    (``replicas``: credential id -> replica)."""
    writes, history = [], []
    for event in read_events(plane.audit_log):
        if event.credential not in replicas or not 200 <= event.code < 300 or event.resource_version is None:
            continue
        if event.resource == "leases" and event.name == cluster.lease:
            holder_now = str(((event.response or {}).get("spec") or {}).get("holderIdentity") or "")
            history.append((event.resource_version, holder_now))
        elif event.resource == "pods" and event.namespace == cluster.namespace:
            writes.append(
                Write(
                    event.resource_version,
                    event.verb,
                    event.resource,
                    event.namespace,
                    event.name or "",
                    replicas[event.credential],
                )
            )
    return writes, sorted(history)


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_no_write_lands_from_a_replica_that_does_not_hold_the_lease(
    real_cluster: RealCluster, controller_accounts: ControllerAccounts, tmp_path: Path
) -> None:
    real_cluster.add_racks(nodes=12)
    kubeconfigs = {n: controller_accounts.fresh(Mode.UNGATER, tmp_path / f"kubeconfig-{n}") for n in REPLICAS}
    options = [
        f"--namespace={real_cluster.namespace}",
        f"--topology={real_cluster.topology().name}",
        f"--lease-name={real_cluster.lease}",
        f"--lease-namespace={CONTROLLER_NAMESPACE}",
    ]
    processes = {n: Replica(n, kubeconfigs[n], tmp_path / f"replica-{n}.log", options) for n in REPLICAS}
    churn = Churn(real_cluster.plane, real_cluster.run)
    churn.start()
    rng = random.Random(23)
    done = 0
    try:
        wait_for(lambda: holder(real_cluster) in REPLICAS, "a replica holds the lease")
        while done < HANDOVERS:
            old = holder(real_cluster)
            other = next(n for n in REPLICAS if n != old)
            time.sleep(rng.uniform(0.5, 1.5))  # somewhere in the leader's work
            processes[old].signal(signal.SIGSTOP)  # the leader stops, and wakes up after a takeover
            taken_over(real_cluster, other, old)
            time.sleep(3.0)  # the new leader acts meanwhile
            processes[old].signal(signal.SIGCONT)
            done += 1
            for replica in processes.values():
                assert replica.alive(), replica.log.read_text()[-3000:]
    finally:
        churn.stop.set()
        churn.join()
        for replica in processes.values():
            replica.stop()
    writes, history = record(
        real_cluster.plane, real_cluster, {credential_of(k): n for n, k in kubeconfigs.items()}
    )

    violations, checked = writes_by_non_holders(writes, history, REPLICAS)
    assert violations == [], "\n".join(violations[:20])
    assert handovers(history) >= HANDOVERS
    by_replica = {n: sum(1 for w in writes if w.user == n) for n in REPLICAS}
    assert checked > 50 and min(by_replica.values()) > 10, by_replica  # both wrote, often
    assert churn.made > 20  # gangs kept coming, and were placed
