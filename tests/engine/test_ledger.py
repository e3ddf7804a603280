"""The one capacity ledger: charges are journaled, undone exactly, and never reach the snapshot."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from builders import node, topology
from toposched.engine.core.ledger import Ledger
from toposched.model import CPU, PODS, Resources
from toposched.snapshot import Snapshot
from toposched.topology import TopologyTree


def snapshot() -> Snapshot:
    nodes = [node(f"n{i}").at(rack="r1", host=f"n{i}").alloc(cpu=4, gpu=2).build() for i in range(3)]
    return Snapshot.build(TopologyTree.build(topology("rack", "host"), nodes))


def test_vector_charges_the_pods_slot_and_gives_unknown_resources_an_empty_column() -> None:
    snap = snapshot()
    ledger = Ledger(snap.free, snap.columns)
    vec = ledger.vector(Resources({CPU: 1000, "example.com/fpga": 1}))
    assert vec[ledger.columns[PODS]] == 1 and vec[ledger.columns[CPU]] == 1000
    assert (ledger.column("example.com/fpga") == 0).all()
    assert "example.com/fpga" not in snap.columns and snap.free.shape[1] == len(snap.columns)


def test_a_charge_never_reaches_the_snapshot_and_undo_gives_it_back() -> None:
    snap = snapshot()
    before = snap.free.copy()
    ledger = Ledger(snap.free, snap.columns)
    mark = ledger.mark()
    ledger.charge(np.asarray([0, 2]), np.asarray([2, 1]), ledger.vector(Resources({CPU: 1000})))
    assert ledger.column(CPU).tolist() == [2000, 4000, 3000]
    assert np.array_equal(snap.free, before)
    ledger.undo(mark)
    assert np.array_equal(ledger.free, before)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 2), st.integers(1, 3), st.booleans(), st.booleans()), max_size=12))
def test_undo_to_any_mark_restores_exactly_what_was_free_there(
    steps: list[tuple[int, int, bool, bool]],
) -> None:
    snap = snapshot()
    ledger = Ledger(snap.free, snap.columns)
    seen: list[tuple[int, np.ndarray]] = []
    for row, pods, new_resource, take_mark in steps:
        if take_mark:
            seen.append((ledger.mark(), ledger.free.copy()))
        requests = {CPU: 500, "extra": 1} if new_resource else {CPU: 500}
        ledger.charge(np.asarray([row]), np.asarray([pods]), ledger.vector(Resources(requests)))
    for mark, free in reversed(seen):
        ledger.undo(mark)
        assert np.array_equal(ledger.free[:, : free.shape[1]], free)
        assert not ledger.free[:, free.shape[1] :].any()  # columns added later hold nothing
    ledger.undo(0)
    assert np.array_equal(ledger.free[:, : snap.free.shape[1]], snap.free)


@settings(max_examples=100, deadline=None)
@given(
    st.lists(st.tuples(st.sets(st.integers(0, 2), min_size=1), st.integers(1, 3), st.booleans()), max_size=8)
)
def test_a_charge_to_distinct_rows_is_the_unbuffered_add(steps: list[tuple[set[int], int, bool]]) -> None:
    snap = snapshot()
    fast, plain = Ledger(snap.free, snap.columns), Ledger(snap.free, snap.columns)
    for rows, pods, new_resource in steps:
        requests = Resources({CPU: 500, "extra": 1} if new_resource else {CPU: 500})
        at, count = np.asarray(sorted(rows)), np.full(len(rows), pods)
        fast.charge(at, count, fast.vector(requests), distinct=True)
        plain.charge(at, count, plain.vector(requests))
        assert np.array_equal(fast.free, plain.free)
    fast.undo(0)
    assert np.array_equal(fast.free[:, : snap.free.shape[1]], snap.free)


@settings(max_examples=100, deadline=None)
@given(st.data())
def test_copies_are_the_least_whole_share_of_every_asked_column(data: st.DataObject) -> None:
    """``copies`` (column by column, one divisor each) equals dividing row by row."""
    free = np.asarray(
        data.draw(st.lists(st.lists(st.integers(-3, 50), min_size=3, max_size=3), min_size=1, max_size=6)),
        dtype=np.int64,
    )
    ledger = Ledger(free, {CPU: 0, "memory": 1, PODS: 2})
    vec = ledger.vector(
        Resources({CPU: data.draw(st.integers(0, 7)), "memory": data.draw(st.integers(0, 7))})
    )
    if data.draw(st.booleans()):
        vec = vec.copy()  # a writable vector is read afresh every time
    rows = np.asarray(data.draw(st.lists(st.integers(0, len(free) - 1), max_size=6)), dtype=np.int64)
    expected = [min(int(free[r, c]) // int(vec[c]) for c in range(3) if vec[c]) for r in rows.tolist()]
    assert ledger.copies(rows, vec).tolist() == expected
    assert ledger.copies(rows, vec).tolist() == expected  # kept columns answer alike
    assert ledger.copies(slice(0, len(free)), vec).tolist() == [
        min(int(f[c]) // int(vec[c]) for c in range(3) if vec[c]) for f in free.tolist()
    ]
