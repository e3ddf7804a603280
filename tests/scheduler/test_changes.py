"""A cycle reads what changed since the last one, not every node and booking: an idle cycle
reads none, and every change is still seen, whoever wrote it.

    b1 ── r1 ── x1 (2 gpu)  x2 (2 gpu)  x3 (2 gpu)
       └─ r2 ── x4 (2 gpu)
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from unittest import mock

import numpy as np
import pytest

from toposched.model import Node, Taint, TaintEffect
from toposched.scheduler import PodStatus, admission
from toposched.snapshot import Snapshot
from toposched.store import MemoryStore, SqliteStore, Store, WorkloadState
from toposched.store.sqlite_rows import NodeReader

from .conftest import Env, job


@pytest.fixture(params=["memory", "sqlite"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    impl: Store = MemoryStore() if request.param == "memory" else SqliteStore(tmp_path / "state.db")
    yield impl
    impl.close()


def test_an_idle_cycle_reads_no_node_and_no_booking(tmp_path: Path) -> None:
    env = Env(SqliteStore(tmp_path / "state.db"))
    first, second = env.submit(job("a", 2)), env.submit(job("b", 1, required=None))
    env.sched.cycle()
    env.sched.cycle()  # reads the admissions back once
    store = env.store
    whole_reads = ("get_nodes", "get_node", "list_workloads", "reservations_by_workload", "get_workload")
    spies = {name: mock.patch.object(store, name, wraps=getattr(store, name)) for name in whole_reads}
    decoded = []
    real_decode = NodeReader.decode

    def decode(reader: NodeReader, text: str, what: str) -> Node:
        decoded.append(what)
        return real_decode(reader, text, what)

    with mock.patch.object(NodeReader, "decode", decode):
        started = {name: spy.start() for name, spy in spies.items()}
        try:
            report = env.sched.cycle()
        finally:
            mock.patch.stopall()
    assert report.admitted == report.unschedulable == report.evicted == ()
    listed = started.pop("list_workloads").call_args_list
    assert [call.kwargs for call in listed] == [{"states": (WorkloadState.EVICTED,)}]  # those only
    assert {name: spy.call_count for name, spy in started.items()} == dict.fromkeys(started, 0)
    assert decoded == []
    assert {w.id for w in store.list_workloads(states=[WorkloadState.ADMITTED])} == {first, second}
    store.close()


def test_a_node_deleted_long_after_its_gang_was_admitted_is_found(store: Store) -> None:
    env = Env(store)
    wid = env.submit(job("train", 4))
    env.sched.cycle()
    env.sched.cycle()  # the admission is read back: the gang is known from the store
    victim = sorted(set(env.nodes_of(wid).values()))[0]
    env.sched.delete_node(victim)
    assert env.sched.cycle().replaced == (wid,)
    assert victim not in env.nodes_of(wid).values()


def test_a_node_failed_by_another_process_is_seen(tmp_path: Path) -> None:
    path = tmp_path / "state.db"
    env = Env(SqliteStore(path))
    wid = env.submit(job("train", 4))
    env.sched.cycle()
    env.sched.cycle()
    victim = sorted(set(env.nodes_of(wid).values()))[0]
    with SqliteStore(path) as other:  # another process's connection to the same file
        other.update_node(victim, ready=False)
    env.sched.cycle()  # the loop sees it NotReady from now on
    env.clock.advance(31)
    assert env.sched.cycle().replaced == (wid,)
    assert victim not in env.nodes_of(wid).values()
    env.store.close()


def test_a_booking_the_last_cycle_could_not_store_is_given_back(store: Store) -> None:
    env = Env(store)
    wid = env.submit(job("whole-rack", 3, gpu=2))  # every GPU of r1
    with (
        mock.patch.object(admission, "flush", side_effect=RuntimeError("disk gone")),
        pytest.raises(RuntimeError),
    ):
        env.sched.cycle()  # charged on the kept snapshot, never stored
    assert env.sched.get(wid).state is WorkloadState.PENDING
    env.clock.advance(60)
    assert env.sched.cycle().admitted == (wid,)
    (kept,) = env.sched._state.snapshots._kept.values()
    rebuilt = Snapshot.build(kept.tree, kept.external)
    for workload, usage in env.store.reservations_by_workload().items():
        rebuilt.add_usage(str(workload), usage)
    for name, column in rebuilt.columns.items():
        assert np.array_equal(kept.snapshot.free[:, kept.snapshot.columns[name]], rebuilt.free[:, column])


def test_a_row_damaged_by_another_program_long_after_admission_is_reported(tmp_path: Path) -> None:
    db = tmp_path / "state.db"
    env = Env(SqliteStore(db))
    damaged = env.submit(job("damaged", 2))
    env.sched.cycle()
    env.sched.cycle()  # the admission is read back: nothing is left to read
    with sqlite3.connect(db) as raw:
        raw.execute("UPDATE workloads SET placement = '{not json' WHERE id = ?", (damaged,))
    env.sched.cycle()
    assert damaged in env.sched.health().broken
    assert env.sched.get(damaged).explanation["broken"] is True
    env.store.close()


def test_a_node_deleted_by_another_program_is_seen(tmp_path: Path) -> None:
    db = tmp_path / "state.db"
    env = Env(SqliteStore(db))
    wid = env.submit(job("train", 4))
    env.sched.cycle()
    env.sched.cycle()
    victim = sorted(set(env.nodes_of(wid).values()))[0]
    with sqlite3.connect(db) as raw:
        raw.execute("DELETE FROM nodes WHERE name = ?", (victim,))
    assert env.sched.cycle().replaced == (wid,)
    assert victim not in env.nodes_of(wid).values()
    env.store.close()


def test_gangs_on_noschedule_nodes_with_their_pods_running_are_not_looked_at() -> None:
    """GPU nodes often carry a NoSchedule taint to keep other pods off: it fails no gang whose
    pods there run, so an idle cycle reads none of them."""
    env = Env()
    taint = Taint("nvidia.com/gpu", "present", TaintEffect.NO_SCHEDULE)
    wid = env.submit(job("train", 4, tolerations=["{key: nvidia.com/gpu, operator: Exists}"]))
    env.sched.cycle()
    for name in sorted({n.name for n in env.store.get_nodes()}):
        env.sched.set_node_taints(name, [taint])
    env.sched.cycle()
    with mock.patch.object(env.store, "get_workload", wraps=env.store.get_workload) as read:
        assert env.sched.cycle().replaced == ()
    assert read.call_count == 0
    assert env.sched.get(wid).state is WorkloadState.ADMITTED


def test_a_gang_whose_pods_stopped_on_a_noschedule_node_fails_there() -> None:
    env = Env()
    wid = env.submit(job("train", 4))
    env.sched.cycle()
    env.sched.cycle()
    victim = sorted(set(env.nodes_of(wid).values()))[0]
    env.sched.set_node_taints(victim, [Taint("maintenance", "", TaintEffect.NO_SCHEDULE)])
    assert env.sched.cycle().replaced == ()  # its pods there still run
    for pod, node in env.nodes_of(wid).items():
        if node == victim:
            env.sched.set_pod_status(wid, pod, PodStatus.FAILED)
    assert env.sched.cycle().replaced == (wid,)
    assert victim not in env.nodes_of(wid).values()
