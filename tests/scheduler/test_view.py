"""The cycle's view: nodes booked beyond what they have, with what the external pods use summed
once and kept between cycles."""

from __future__ import annotations

from builders import GPU, node, running
from toposched.model import Node, Resources
from toposched.scheduler.kept import SnapshotCache
from toposched.scheduler.view import CycleView


def _nodes(gpus: int) -> list[Node]:
    return [node(name).alloc(gpu=gpus, pods=110).build() for name in ("x1", "x2", "x3")]


def test_nodes_over_their_capacity_are_named_with_what_is_over() -> None:
    external = [running("a", "x1", gpu=3), running("b", "x2", gpu=1)]
    booked = {7: {"x2": Resources({GPU: 2, "pods": 1}), "x3": Resources({GPU: 1, "pods": 1})}}
    cache = SnapshotCache()
    assert CycleView(_nodes(4), external, booked, snapshots=cache).overbooked() == {}
    shrunk = CycleView(_nodes(2), external, booked, snapshots=cache).overbooked()  # re-imported smaller
    assert shrunk == {"x1": f"{GPU} 3 booked > 2", "x2": f"{GPU} 3 booked > 2"}
    released = CycleView(_nodes(2), external, {}, snapshots=cache).overbooked()
    assert released == {"x1": f"{GPU} 3 booked > 2"}  # the external pods alone
