"""Cluster imports merge per node: a dump imported in chunks keeps every chunk's running pods,
``replace`` makes a dump the whole cluster, and a node re-imported smaller than its bookings
sends its gangs through replacement or eviction, across restarts too."""

from __future__ import annotations

from pathlib import Path

from builders import GPU
from toposched.intake.cluster import load_cluster
from toposched.model import Cluster
from toposched.store import SqliteStore, WorkloadState

from .conftest import Env, job

TOPOLOGY = """- apiVersion: kueue.x-k8s.io/v1beta1
  kind: Topology
  metadata: {name: racks}
  spec:
    levels: [{nodeLabel: example.com/rack}, {nodeLabel: kubernetes.io/hostname}]
"""


def dump(nodes: dict[str, int], pods: dict[str, tuple[str, int]] | None = None) -> Cluster:
    """Nodes (name -> GPUs, all in rack r1), running pods (name -> (node, GPUs)), the topology."""
    items = [
        f"""- apiVersion: v1
  kind: Node
  metadata:
    name: {name}
    labels: {{example.com/rack: r1, kubernetes.io/hostname: {name}}}
  status:
    allocatable: {{{GPU}: "{gpus}", pods: "110"}}
"""
        for name, gpus in nodes.items()
    ]
    items += [
        f"""- apiVersion: v1
  kind: Pod
  metadata: {{name: {name}, namespace: serving}}
  spec:
    nodeName: {node}
    containers: [{{name: c, resources: {{requests: {{{GPU}: "{gpus}"}}}}}}]
  status: {{phase: Running}}
"""
        for name, (node, gpus) in (pods or {}).items()
    ]
    return load_cluster("apiVersion: v1\nkind: List\nitems:\n" + "".join(items) + TOPOLOGY)


def one_gpu_jobs(env: Env, count: int) -> list[int]:
    return [
        env.sched.submit(job(f"j{i}", 1, gpu=1, required=None), owner="a", topology="racks").id
        for i in range(count)
    ]


def test_a_dump_imported_in_two_chunks_keeps_the_first_chunks_pods_booked(tmp_path: Path) -> None:
    path = tmp_path / "state.db"
    env = Env(SqliteStore(path), seed=False)
    env.sched.import_cluster(dump({"n1": 4}, {"web": ("n1", 3)}))
    env.sched.import_cluster(dump({"n2": 4}, {"db": ("n2", 2)}))
    jobs = one_gpu_jobs(env, 4)
    report = env.sched.cycle()
    assert len(report.admitted) == 3 and len(report.unschedulable) == 1  # 1 + 2 GPUs free
    env.store.close()

    again = Env(SqliteStore(path), seed=False)  # a restart replays both imports
    again.clock.advance(10)
    assert again.sched.cycle().admitted == ()
    waiting = [j for j in jobs if again.sched.get(j).state is WorkloadState.PENDING]
    again.sched.import_cluster(dump({"n1": 4}))  # n1 again, now without its pod: 3 GPUs freed
    again.clock.advance(60)
    assert again.sched.cycle().admitted == tuple(waiting)
    again.store.close()


def test_replace_removes_what_the_dump_does_not_list() -> None:
    env = Env(seed=False)
    env.sched.import_cluster(dump({"n1": 4, "n2": 4}, {"web": ("n1", 3), "db": ("n2", 1)}))
    report = env.sched.import_cluster(dump({"n2": 4}), replace=True)
    assert report.removed_nodes == ("n1",)
    assert report.removed_pods == ("serving/db", "serving/web")
    assert [n.name for n in env.store.get_nodes()] == ["n2"]
    jobs = one_gpu_jobs(env, 4)
    assert set(env.sched.cycle().admitted) == set(jobs)  # db is gone: all 4 GPUs of n2 are free


def test_a_node_reimported_smaller_than_its_bookings_has_its_gang_replaced(tmp_path: Path) -> None:
    path = tmp_path / "state.db"
    env = Env(SqliteStore(path), seed=False)
    env.sched.import_cluster(dump({"n1": 4, "n2": 4}))
    wid = env.sched.submit(job("big", 1, gpu=4, required=None), owner="a", topology="racks").id
    env.sched.cycle()
    (node,) = set(env.nodes_of(wid).values())
    report = env.sched.import_cluster(dump({node: 2}))
    assert len(report.overbooked) == 1 and node in report.overbooked[0]
    env.store.close()

    again = Env(SqliteStore(path), seed=False)  # the shrink is found again after a restart
    again.clock.advance(10)
    assert again.sched.cycle().replaced == (wid,)
    assert set(again.nodes_of(wid).values()) == {"n1", "n2"} - {node}
    assert "less capacity than is booked" in again.store.list_events(workload=wid)[-1].message
    again.store.close()


def test_a_shrunk_node_without_room_elsewhere_has_its_gang_evicted() -> None:
    env = Env(seed=False)
    env.sched.import_cluster(dump({"n1": 4, "n2": 4}, {"web": ("n2", 4)}))
    wid = env.sched.submit(job("big", 1, gpu=4, required=None), owner="a", topology="racks").id
    assert env.sched.cycle().admitted == (wid,)
    env.sched.import_cluster(dump({"n1": 2}))
    assert env.sched.cycle().evicted == (wid,)
    assert env.sched.get(wid).state is WorkloadState.PENDING
    evicted = [e for e in env.store.list_events(workload=wid) if e.type == "evicted"]
    assert "less capacity than is booked" in evicted[-1].message
    assert env.store.reserved_by_node() == {}
