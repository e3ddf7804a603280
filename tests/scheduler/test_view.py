"""The cycle's view: nodes booked beyond what they have, with what the external pods use summed
once and kept between cycles."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from builders import GPU, node, running
from toposched.model import Node, Resources
from toposched.scheduler.kept import BookingTotals, SnapshotCache
from toposched.scheduler.view import CycleView


def _nodes(gpus: int) -> list[Node]:
    return [node(name).alloc(gpu=gpus, pods=110).build() for name in ("x1", "x2", "x3")]


def test_nodes_over_their_capacity_are_named_with_what_is_over() -> None:
    external = [running("a", "x1", gpu=3), running("b", "x2", gpu=1)]
    booked = {7: {"x2": Resources({GPU: 2, "pods": 1}), "x3": Resources({GPU: 1, "pods": 1})}}
    cache = SnapshotCache()
    assert CycleView.of(_nodes(4), external, booked, snapshots=cache).overbooked() == {}
    shrunk = CycleView.of(_nodes(2), external, booked, snapshots=cache).overbooked()  # re-imported smaller
    assert shrunk == {"x1": f"{GPU} 3 booked > 2", "x2": f"{GPU} 3 booked > 2"}
    released = CycleView.of(_nodes(2), external, {}, snapshots=cache).overbooked()
    assert released == {"x1": f"{GPU} 3 booked > 2"}  # the external pods alone


USAGE = st.dictionaries(
    st.sampled_from(["x1", "x2", "x3"]),
    st.builds(Resources, st.dictionaries(st.sampled_from([GPU, "pods"]), st.integers(0, 4))),
    max_size=3,
)
BOOKINGS = st.dictionaries(st.integers(1, 6), USAGE, max_size=6)
STEP = st.one_of(
    st.tuples(st.just("charge"), st.integers(1, 6), USAGE),
    st.tuples(st.just("release"), st.integers(1, 6), st.just({})),
    st.tuples(st.just("sync"), st.just(0), BOOKINGS),
)


def _summed(booked: Mapping[int, Mapping[str, Resources]]) -> dict[str, dict[str, int]]:
    """The readable twin: every booking added up per node, zeros left out."""
    totals: dict[str, dict[str, int]] = {}
    for usage in booked.values():
        for name, resources in usage.items():
            for resource, amount in resources.items():
                into = totals.setdefault(name, {})
                into[resource] = into.get(resource, 0) + amount
    return {name: into for name, into in totals.items() if into}


@given(st.lists(STEP, max_size=12))
def test_kept_totals_are_always_the_sum_of_the_bookings(steps: list[tuple[str, int, Any]]) -> None:
    kept, booked = BookingTotals(), dict[int, Any]()
    for action, workload, value in steps:
        if action == "charge":
            kept.charge(workload, value)
            booked[workload] = value
        elif action == "release":
            kept.release(workload)
            booked.pop(workload, None)
        else:
            kept.sync(value)
            booked = dict(value)
        assert kept.per_node == _summed(booked)


def test_a_view_keeps_the_totals_in_step_when_it_charges_and_releases() -> None:
    cache = SnapshotCache()
    view = CycleView.of(_nodes(2), [], {7: {"x1": Resources({GPU: 2})}}, snapshots=cache)
    view.charge(8, {"x1": Resources({GPU: 1})})
    assert view.overbooked() == {"x1": f"{GPU} 3 booked > 2"}
    view.release(7)
    assert view.overbooked() == {}
    assert CycleView.of(_nodes(2), [], {7: {"x1": Resources({GPU: 3})}}, snapshots=cache).overbooked() == {
        "x1": f"{GPU} 3 booked > 2"
    }
