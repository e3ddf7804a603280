"""A snapshot's node space kept between placements answers as a new one would.

``place_hierarchical`` takes the space an earlier placement on the same snapshot closed (its
ledger rolled back, its per-domain sums kept current); the readable twin builds a new
``NodeSpace`` for every placement. Placements alternate between gangs and commit some of them
to the snapshot or release earlier ones (a new snapshot version: the kept space starts from its
capacity again, its sums moved by the rows that changed).
"""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st
from tests.engine.test_properties_hierarchy import SETTINGS, Scenario, scenarios

from builders import node, topology
from toposched.engine import usage_of
from toposched.engine.core.caches import EngineCaches
from toposched.engine.core.ledger import Ledger
from toposched.engine.core.space import NodeSpace
from toposched.engine.kai.hierarchy import _place, place_hierarchical
from toposched.engine.profiles import as_policy
from toposched.model import Placement, Policy, Resources, Unschedulable
from toposched.snapshot import Snapshot
from toposched.topology import TopologyTree


def same_result(a: Placement | Unschedulable, b: Placement | Unschedulable) -> bool:
    """The same pods on the same nodes and the same domains (or the same refusal)."""
    if isinstance(a, Placement) and isinstance(b, Placement):
        return list(a.pods) == list(b.pods) and {k: list(v.domains) for k, v in a.assignments.items()} == {
            k: list(v.domains) for k, v in b.assignments.items()
        }
    return a == b


@SETTINGS
@given(
    scenarios(),
    scenarios(),
    st.lists(
        st.tuples(st.booleans(), st.sampled_from(["keep", "commit", "release"])), min_size=1, max_size=6
    ),
)
def test_kept_space_places_as_a_new_one(
    first: Scenario, second: Scenario, steps: list[tuple[bool, str]]
) -> None:
    """Commits and releases between placements: the kept space moves its sums by the rows the
    snapshot changed."""
    snapshot = first.snapshot()
    gangs = [first.gang, second.gang]
    caches = EngineCaches()
    for k, (which, step) in enumerate(steps):
        gang = gangs[which]
        for policy in (Policy.BINPACK, Policy.MIXED):
            kept = place_hierarchical(gang, snapshot, policy=as_policy(policy), caches=caches)
            fresh = _place(gang, NodeSpace(snapshot), as_policy(policy))
            assert same_result(kept, fresh)
        if step == "commit" and isinstance(kept, Placement):
            snapshot.add_usage(f"g{k}", usage_of(kept, gang))
        elif step == "release" and snapshot.usage_keys():
            snapshot.remove_usage(snapshot.usage_keys()[0])


def test_kept_space_follows_the_snapshot() -> None:
    """A commit between two placements is seen by the second (the kept space restarts)."""
    nodes = [node(f"n{i}").at(rack="r1", host=f"n{i}").alloc(cpu=2).build() for i in range(2)]
    snapshot = Snapshot.build(TopologyTree.build(topology("rack", "host"), nodes))
    caches = EngineCaches()
    with NodeSpace.open(snapshot, None, caches) as space:
        before = space.ledger.column("cpu").tolist()
    snapshot.add_usage("w", {"n0": Resources({"cpu": 1000, "pods": 1})})
    with NodeSpace.open(snapshot, None, caches) as again:
        assert again is space
        assert again.ledger.column("cpu").tolist() == [before[0] - 1000, before[1]]


@SETTINGS
@given(st.data())
def test_charges_with_repeated_rows_add_up(data: st.DataObject) -> None:
    """The ledger's flat-index charge equals charging one pod at a time, rows repeating."""
    free = np.asarray(data.draw(st.lists(st.integers(0, 9), min_size=3, max_size=3)), dtype=np.int64)
    matrix = np.tile(free, (4, 1))
    ledger = Ledger(matrix, {"cpu": 0, "memory": 1, "pods": 2})
    rows = data.draw(st.lists(st.integers(0, 3), min_size=2, max_size=8))
    pods = data.draw(st.lists(st.integers(1, 3), min_size=len(rows), max_size=len(rows)))
    vec = np.asarray([1, 2, 1], dtype=np.int64)
    ledger.charge(np.asarray(rows, dtype=np.int64), np.asarray(pods, dtype=np.int64), vec)
    expected = np.tile(free, (4, 1))
    for row, count in zip(rows, pods, strict=True):
        expected[row] -= count * vec
    assert ledger.free.tolist() == expected.tolist()
    ledger.undo(0)
    assert ledger.free.tolist() == np.tile(free, (4, 1)).tolist()
