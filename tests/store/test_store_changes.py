"""What changed since a reader last looked (``Store.node_changes``, ``Store.booking_changes``):
a reader that applies each answer to what it held always holds what the store holds, in both
stores, also when the writer is another connection to the same SQLite file."""

from __future__ import annotations

import sqlite3
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toposched.model import Node, Resources
from toposched.store import MemoryStore, SqliteStore, Store, WorkloadState, sqlite_changes
from toposched.store.codecs import dumps, node_to_json, resources_to_json
from toposched.store.migrations import migrate

from .conftest import event, gpu_node, gpus, workload
from .test_store_properties import NODES, _apply
from .test_store_properties import operation as workload_operation

HOLDING = [s for s in WorkloadState if s.holds_capacity]


@dataclass
class Reader:
    """What a scheduler keeps: every node, and the bookings of the workloads holding capacity."""

    nodes: dict[str, Node] = field(default_factory=dict)
    booked: dict[int, dict[str, Resources]] = field(default_factory=dict)
    node_generation: int | None = None
    booking_generation: int | None = None
    full_reads: int = 0

    def read(self, store: Store) -> None:
        nodes = store.node_changes(self.node_generation)
        if nodes.full:
            self.nodes.clear()
            self.full_reads += 1
        for name in nodes.removed:
            self.nodes.pop(name, None)
        self.nodes.update((node.name, node) for node in nodes.nodes)
        self.node_generation = nodes.generation
        bookings = store.booking_changes(self.booking_generation)
        if bookings.full:
            self.booked.clear()
        for workload_id in bookings.released:
            self.booked.pop(workload_id, None)
        for record in bookings.holding:
            self.booked[record.id] = dict(bookings.reservations[record.id])
        self.booking_generation = bookings.generation

    def check(self, store: Store) -> None:
        assert sorted(self.nodes.values(), key=lambda n: n.name) == store.get_nodes()
        reserved = store.reservations_by_workload()
        holding = {w.id for w in store.list_workloads(states=HOLDING)}
        assert self.booked == {w: reserved.get(w, {}) for w in holding}


node_operation = st.one_of(
    st.tuples(st.just("put"), st.lists(st.sampled_from((*NODES, "n4")), max_size=3), st.integers(1, 9)),
    st.tuples(st.just("replace"), st.lists(st.sampled_from((*NODES, "n4")), min_size=1, max_size=4)),
    st.tuples(st.just("cordon"), st.sampled_from((*NODES, "n4")), st.booleans()),
    st.tuples(st.just("delete"), st.sampled_from((*NODES, "n4"))),
    st.just(("read",)),
)


def _apply_node_op(store: Store, op: tuple[object, ...]) -> None:
    match op:
        case ("put", list(names), int(count)):
            store.put_nodes([gpu_node(str(n), gpus=count, pods=4) for n in names])
        case ("replace", list(names)):
            store.put_nodes([gpu_node(str(n), gpus=8, pods=4) for n in names], replace=True)
        case ("cordon", str(name), bool(on)):
            if name in {n.name for n in store.get_nodes()}:
                store.update_node(name, unschedulable=on)
        case ("delete", str(name)):
            if name in {n.name for n in store.get_nodes()}:
                store.delete_node(name)


def _stores(folder: str) -> Iterator[tuple[Store, Store]]:
    """(writer, reader) pairs: each store read by itself, and a SQLite file written through one
    connection and read through another (as another process would)."""
    for memory in (MemoryStore(), MemoryStore(history=False)):
        yield memory, memory
    sqlite = SqliteStore(Path(folder) / "one.db")
    yield sqlite, sqlite
    yield SqliteStore(Path(folder) / "two.db"), SqliteStore(Path(folder) / "two.db")


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.one_of(workload_operation, node_operation), max_size=30))
def test_a_reader_applying_the_changes_holds_what_the_store_holds(ops: list[tuple[object, ...]]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        for writer, reader_store in _stores(folder):
            writer.put_nodes([gpu_node(name, gpus=8, pods=4) for name in NODES])
            reader = Reader()
            for op in [*ops, ("read",)]:
                if op == ("read",):
                    reader.read(reader_store)
                    reader.check(reader_store)
                elif op[0] in ("put", "replace", "cordon", "delete"):
                    _apply_node_op(writer, op)
                else:
                    _apply(writer, op)
            writer.close()
            reader_store.close()


@pytest.fixture(params=["memory", "sqlite"])
def bare(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    impl: Store = MemoryStore() if request.param == "memory" else SqliteStore(tmp_path / "state.db")
    yield impl
    impl.close()


def test_nothing_changed_reads_nothing_and_a_change_reads_only_itself(bare: Store) -> None:
    bare.put_nodes([gpu_node(f"n{i}") for i in range(50)])
    first = bare.node_changes()
    assert first.full and len(first.nodes) == 50
    idle = bare.node_changes(first.generation)
    assert (idle.nodes, idle.removed, idle.full) == ((), (), False)
    bare.update_node("n7", ready=False)
    bare.delete_node("n9")
    changed = bare.node_changes(idle.generation)
    assert [n.name for n in changed.nodes] == ["n7"] and not changed.nodes[0].ready
    assert changed.removed == ("n9",) and not changed.full
    assert bare.node_changes(changed.generation).nodes == ()


def test_bookings_report_admissions_and_every_way_out(bare: Store) -> None:
    bare.put_nodes([gpu_node("n1"), gpu_node("n2")])
    ids = [bare.submit_workload(workload(f"w{i}")).id for i in range(4)]
    start = bare.booking_changes()
    assert start.full and list(start.holding) == []
    for wid in ids:
        bare.admit(wid, {"pods": []}, {"n1": gpus(1)}, event())
    admitted = bare.booking_changes(start.generation)
    assert [r.id for r in admitted.holding] == ids and admitted.released == {}
    assert admitted.reservations[ids[0]] == {"n1": gpus(1)}
    bare.release(ids[0], WorkloadState.FINISHED, event())
    bare.evict(ids[1], event())
    bare.requeue(ids[2], event())
    bare.reassign(ids[3], {"pods": []}, {"n2": gpus(2)}, event())
    bare.start(ids[3], event())  # holding before and after: no change of bookings
    later = bare.booking_changes(admitted.generation)
    assert later.released == {
        ids[0]: WorkloadState.FINISHED,
        ids[1]: WorkloadState.EVICTED,
        ids[2]: WorkloadState.PENDING,
    }
    assert [r.id for r in later.holding] == [ids[3]] and later.reservations[ids[3]] == {"n2": gpus(2)}
    assert list(bare.booking_changes(later.generation).holding) == []


def test_a_forgotten_workload_is_reported_released_without_a_state() -> None:
    store = MemoryStore(history=False)
    store.put_nodes([gpu_node("n1")])
    wid = store.submit_workload(workload()).id
    store.admit(wid, {"pods": []}, {"n1": gpus(1)}, event())
    seen = store.booking_changes()
    store.release(wid, WorkloadState.CANCELLED, event())
    assert store.booking_changes(seen.generation).released == {wid: None}


def test_a_generation_the_store_cannot_answer_for_reads_everything(bare: Store) -> None:
    bare.put_nodes([gpu_node("n1"), gpu_node("n2")])
    now = bare.node_changes()
    assert bare.node_changes(now.generation + 5).full  # not from this store
    assert bare.booking_changes(bare.booking_changes().generation + 5).full


def test_a_full_replace_reports_the_nodes_it_removed(bare: Store) -> None:
    bare.put_nodes([gpu_node("n1"), gpu_node("n2")])
    now = bare.node_changes()
    bare.put_nodes([gpu_node("n2"), gpu_node("n3")], replace=True)
    replaced = bare.node_changes(now.generation)
    assert [n.name for n in replaced.nodes] in (["n2", "n3"], ["n3"])  # n2 rewritten as it was
    assert replaced.removed == ("n1",)


def test_deletions_past_the_bound_make_older_readers_read_everything(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sqlite_changes, "MAX_REMOVED", 3)
    with SqliteStore(tmp_path / "state.db") as store:
        store.put_nodes([gpu_node(f"n{i}") for i in range(6)])
        seen = store.node_changes().generation
        for i in range(3):
            store.delete_node(f"n{i}")
        assert store.node_changes(seen).removed == ("n0", "n1", "n2")
        store.delete_node("n3")
        after = store.node_changes(seen)
        assert after.full and [n.name for n in after.nodes] == ["n4", "n5"]


def test_memory_store_deletions_past_the_bound_make_older_readers_read_everything() -> None:
    store = MemoryStore()
    store._node_log = type(store._node_log)(slack=2)
    store.put_nodes([gpu_node(f"n{i}") for i in range(6)])
    seen = store.node_changes().generation
    store.delete_node("n0")
    store.delete_node("n1")
    assert store.node_changes(seen).removed == ("n0", "n1")
    store.delete_node("n2")  # 6 names logged for 3 nodes: more than the slack of 2
    after = store.node_changes(seen)
    assert after.full and [n.name for n in after.nodes] == ["n3", "n4", "n5"]


def test_a_file_from_before_generations_is_read_whole_then_by_change(tmp_path: Path) -> None:
    path = tmp_path / "state.db"
    conn = sqlite3.connect(path, isolation_level=None)
    migrate(conn, target=5)  # as toposched wrote it before generations
    for name in ("n1", "n2"):
        conn.execute(
            "INSERT INTO nodes (name, data) VALUES (?, ?)", (name, dumps(node_to_json(gpu_node(name))))
        )
    conn.execute(
        "INSERT INTO workloads (sequence, name, kind, owner, spec, priority, topology, submitted_at, state,"
        " placement) VALUES (1, 'w', 'Job', 'alice', '{}', 0, '', 0, 'admitted', ?)",
        (dumps({"pods": [{"name": "w-0", "podSet": "main", "index": 0, "node": "n1"}]}),),
    )
    conn.execute(
        "INSERT INTO reservations (workload, node, resources) VALUES (1, 'n1', ?)",
        (dumps(resources_to_json(gpus(1))),),
    )
    conn.close()
    with SqliteStore(path) as store:
        assert store.migrated_from == 5
        nodes, bookings = store.node_changes(), store.booking_changes()
        assert [n.name for n in nodes.nodes] == ["n1", "n2"] and nodes.full
        assert [r.id for r in bookings.holding] == [1] and bookings.reservations[1] == {"n1": gpus(1)}
        store.update_node("n2", unschedulable=True)
        assert [n.name for n in store.node_changes(nodes.generation).nodes] == ["n2"]


def test_rows_another_program_changes_are_reported(tmp_path: Path) -> None:
    """Triggers stamp what is written without toposched: a node inserted, changed or deleted,
    a workload's placement damaged."""
    path = tmp_path / "state.db"
    with SqliteStore(path) as store:
        store.put_nodes([gpu_node("n1"), gpu_node("n2")])
        wid = store.submit_workload(workload()).id
        store.admit(wid, {"pods": []}, {"n1": gpus(1)}, event())
        nodes, bookings = store.node_changes(), store.booking_changes()
        with sqlite3.connect(path) as raw:
            raw.execute(
                "INSERT INTO nodes (name, data) VALUES ('n3', ?)", (dumps(node_to_json(gpu_node("n3"))),)
            )
            raw.execute(
                "UPDATE nodes SET data = ? WHERE name = 'n2'", (dumps(node_to_json(gpu_node("n2", 4))),)
            )
            raw.execute("DELETE FROM nodes WHERE name = 'n1'")
            raw.execute("UPDATE workloads SET placement = '{not json' WHERE id = ?", (wid,))
        changed = store.node_changes(nodes.generation)
        assert [n.name for n in changed.nodes] == ["n2", "n3"] and changed.removed == ("n1",)
        assert changed.nodes[0].allocatable["nvidia.com/gpu"] == 4
        (damaged,) = store.booking_changes(bookings.generation).holding
        assert damaged.id == wid and "not valid JSON" in damaged.damage
