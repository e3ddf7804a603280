"""Properties over random operation sequences: both stores agree call by call, and booked capacity
never exceeds any node's allocatable."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toposched.model import ToposchedError
from toposched.store import Admission, Decision, MemoryStore, Note, SqliteStore, Store, WorkloadState

from .conftest import event, gpu_node, gpus, workload

NODES = ("n1", "n2", "n3")

operation = st.one_of(
    st.tuples(st.just("submit"), st.integers(0, 3)),
    st.tuples(
        st.just("admit"),
        st.integers(1, 8),
        st.dictionaries(st.sampled_from((*NODES, "gone")), st.integers(1, 9), min_size=1, max_size=3),
    ),
    st.tuples(
        st.just("decide"),
        st.lists(
            st.tuples(
                st.integers(1, 8),
                st.dictionaries(st.sampled_from((*NODES, "gone")), st.integers(0, 9), max_size=3),
            ),
            max_size=4,
        ),
    ),
    st.tuples(st.just("start"), st.integers(1, 8)),
    st.tuples(
        st.just("release"),
        st.integers(1, 8),
        st.sampled_from([WorkloadState.FINISHED, WorkloadState.CANCELLED]),
    ),
    st.tuples(st.just("evict"), st.integers(1, 8)),
    st.tuples(st.just("requeue"), st.integers(1, 8), st.booleans()),
)


def _apply(store: Store, op: tuple[object, ...]) -> object:
    """Run one operation; the outcome is its result or the class of the error it raised."""
    try:
        match op:
            case ("submit", int(priority)):
                return store.submit_workload(workload(priority=priority))
            case ("admit", int(wid), dict(booking)):
                return store.admit(
                    wid, {"n": len(booking)}, {n: gpus(g) for n, g in booking.items()}, event()
                )
            case ("decide", list(run)):
                # An empty booking is a note; the others are admissions.
                decisions: list[Decision] = [
                    Admission(wid, {"n": len(b)}, {n: gpus(g) for n, g in b.items()}, event())
                    if b
                    else Note(wid, {"why": "waits"}, event("Unschedulable"))
                    for wid, b in run
                ]
                return {wid: type(exc) for wid, exc in store.write_decisions(decisions).items()}
            case ("start", int(wid)):
                return store.start(wid, event("Running"))
            case ("release", int(wid), WorkloadState() as final):
                return store.release(wid, final, event("Done"))
            case ("evict", int(wid)):
                return store.evict(wid, event("Evicted"), {"why": "test"})
            case ("requeue", int(wid), bool(to_back)):
                return store.requeue(wid, event("Requeued"), to_back=to_back)
    except ToposchedError as exc:
        return type(exc)
    raise AssertionError(f"unknown operation {op!r}")


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(operation, max_size=25))
def test_memory_and_sqlite_agree_and_never_overbook(ops: list[tuple[object, ...]]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        memory, sqlite = MemoryStore(), SqliteStore(Path(folder) / "state.db")
        stores: list[Store] = [memory, sqlite]
        for store in stores:
            store.put_nodes([gpu_node(name, gpus=8, pods=4) for name in NODES])
        for op in ops:
            assert _apply(memory, op) == _apply(sqlite, op), op
            booked = sqlite.reserved_by_node()
            for node, amounts in booked.items():
                allocatable = sqlite.get_node(node).allocatable
                assert all(amounts[r] <= allocatable[r] for r in amounts), (node, amounts)
        assert memory.list_workloads() == sqlite.list_workloads()
        assert memory.reserved_by_node() == sqlite.reserved_by_node()
        assert memory.list_events() == sqlite.list_events()
        sqlite.close()
