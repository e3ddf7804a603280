"""A new scheduler on the same SQLite file continues where the old one stopped, and imports."""

from __future__ import annotations

from pathlib import Path

from builders import GPU
from toposched.intake.cluster import load_cluster
from toposched.scheduler import PodStatus
from toposched.store import SqliteStore, WorkloadState

from .conftest import Env, job

DUMP = f"""apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata:
    name: n1
    labels: {{example.com/rack: r1, kubernetes.io/hostname: n1}}
  status:
    allocatable: {{{GPU}: "4", pods: "110"}}
- apiVersion: v1
  kind: Node
  metadata:
    name: n2
    labels: {{example.com/rack: r1, kubernetes.io/hostname: n2}}
  spec:
    taints: [{{key: maintenance, effect: NoSchedule}}]
  status:
    allocatable: {{{GPU}: "4", pods: "110"}}
- apiVersion: v1
  kind: Pod
  metadata: {{name: other, namespace: serving}}
  spec:
    nodeName: n1
    containers: [{{name: c, resources: {{requests: {{{GPU}: "3"}}}}}}]
  status: {{phase: Running}}
- apiVersion: kueue.x-k8s.io/v1beta1
  kind: Topology
  metadata: {{name: racks}}
  spec:
    levels: [{{nodeLabel: example.com/rack}}, {{nodeLabel: kubernetes.io/hostname}}]
"""


def reopen(path: Path, now: float, *, seed: bool = True) -> Env:
    env = Env(SqliteStore(path), seed=seed)
    env.clock.advance(now - env.clock.now())
    return env


def test_restart_keeps_bookings_and_does_not_double_book(tmp_path: Path) -> None:
    path = tmp_path / "state.db"
    first = Env(SqliteStore(path))
    a = first.submit(job("a", 4))
    b = first.submit(job("b", 4))
    first.sched.cycle()
    assert first.sched.get(a).state is WorkloadState.ADMITTED
    first.store.close()

    second = reopen(path, 1010.0)
    report = second.sched.cycle()
    assert report.admitted == () and report.unschedulable == (b,)
    assert sum(r[GPU] for r in second.store.reserved_by_node().values()) == 4
    second.sched.finish(a)
    second.clock.advance(10)
    assert second.sched.cycle().admitted == (b,)
    second.store.close()


def test_restart_keeps_the_not_ready_time(tmp_path: Path) -> None:
    path = tmp_path / "state.db"
    first = Env(SqliteStore(path))
    wid = first.submit(job("a", 4))
    first.sched.cycle()
    victim = sorted(set(first.nodes_of(wid).values()))[0]
    first.sched.set_node_ready(victim, False)  # at t = 1000
    first.store.close()

    second = reopen(path, 1029.0)
    assert second.sched.cycle().replaced == ()
    second.clock.advance(2)  # 31 s after the node went NotReady, though only 2 s after the restart
    assert second.sched.cycle().replaced == (wid,)
    second.store.close()


def test_restart_keeps_pod_statuses(tmp_path: Path) -> None:
    path = tmp_path / "state.db"
    first = Env(SqliteStore(path))
    wid = first.submit(job("a", 2, required="kubernetes.io/hostname"))
    first.sched.cycle()
    pod = sorted(first.nodes_of(wid))[0]
    first.sched.set_pod_status(wid, pod, PodStatus.FAILED)
    first.store.close()

    second = reopen(path, 1001.0)
    assert second.sched.pod_statuses(wid)[pod] is PodStatus.FAILED
    second.store.close()


def test_import_cluster_counts_external_pods_and_survives_restart(tmp_path: Path) -> None:
    path = tmp_path / "state.db"
    first = Env(SqliteStore(path), seed=False)
    report = first.sched.import_cluster(load_cluster(DUMP))
    assert (report.nodes, report.pods, report.topologies) == (2, 1, ("racks",))
    # n1 has 1 GPU left (the external pod uses 3); n2 is tainted: a 2-GPU pod does not fit.
    wid = first.sched.submit(job("a", 1, gpu=2, required=None), owner="alice", topology="racks").id
    assert first.sched.cycle().unschedulable == (wid,)
    first.store.close()

    second = reopen(path, 1100.0, seed=False)
    assert second.sched.cycle().unschedulable == (wid,)  # the external pod is still counted
    second.sched.set_node_taints("n2", [])
    second.clock.advance(100)
    assert second.sched.cycle().admitted == (wid,)
    assert set(second.nodes_of(wid).values()) == {"n2"}
    second.store.close()
