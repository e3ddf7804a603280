"""Phase 1 kept per snapshot version answers as phase 1 made afresh would.

``place_gang`` takes the first request's phase 1 from ``phase_one.for_snapshot`` when a
placement before it made the same kind on the same snapshot version; the readable twin places
on a new snapshot of the same cluster (nothing kept). Placements alternate between gangs and
commit some of them (a new snapshot version: what was kept is updated on the rows the commit
changed, or made afresh when they are many). The second test changes a few rows at a time, so
the update is what runs, and compares the kept numbers with phase 1 made afresh.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
from hypothesis import given
from hypothesis import strategies as st
from tests.engine.test_properties import SETTINGS, Scenario, scenarios
from tests.engine.test_space_reuse import same_result

from toposched.engine import place_gang, usage_of
from toposched.engine.core.caches import EngineCaches
from toposched.engine.core.counts import LevelCounts
from toposched.engine.core.ledger import Ledger
from toposched.engine.core.messages import Reasons
from toposched.engine.core.request import compile_unit, units_of
from toposched.engine.kueue.phase_one import PhaseOne, for_snapshot, phase_one
from toposched.engine.profiles import as_policy
from toposched.model import CPU, PODS, Placement, Policy, Resources, Unschedulable
from toposched.snapshot import BoolArray, Snapshot
from toposched.topology import IntArray


@SETTINGS
@given(scenarios(), scenarios(), st.lists(st.tuples(st.booleans(), st.booleans()), min_size=1, max_size=5))
def test_kept_phase_one_places_as_a_fresh_one(
    first: Scenario, second: Scenario, steps: list[tuple[bool, bool]]
) -> None:
    snapshot = first.snapshot()
    caches = EngineCaches()
    committed: list[tuple[str, dict[str, Resources]]] = []
    for k, (which, commit) in enumerate(steps):
        scenario = (first, second)[which]
        # Made afresh (per-node numbers kept), then counts kept, then kept counts copied.
        kept, *again = (
            place_gang(scenario.gang, snapshot, policy=scenario.policy, caches=caches) for _ in range(3)
        )
        fresh_snapshot: Snapshot = first.snapshot()
        for key, usage in committed:
            fresh_snapshot.add_usage(key, usage)
        fresh = place_gang(scenario.gang, fresh_snapshot, policy=scenario.policy)
        assert all(same_result(placed, fresh) for placed in (kept, *again))
        if commit and isinstance(kept, Placement):
            usage = usage_of(kept, scenario.gang)
            snapshot.add_usage(f"g{k}", usage)
            committed.append((f"g{k}", usage))


def same_phase_one(nodes: PhaseOne | None, counts: list[LevelCounts], fresh: PhaseOne) -> bool:
    """The same per-node numbers (unless ``nodes`` is None) and counts as ``fresh``, array for array."""
    arrays: list[tuple[IntArray | BoolArray | None, IntArray | BoolArray | None]] = []
    if nodes is not None:
        arrays += [(nodes.raw, fresh.raw), (nodes.node_pods, fresh.node_pods)]
        arrays += [(nodes.leader_fits, fresh.leader_fits), (nodes.with_leader, fresh.with_leader)]
    for mine, theirs in zip(counts, fresh.counts, strict=True):
        arrays += [
            (getattr(mine, f), getattr(theirs, f))
            for f in ("pods", "pods_with_leader", "slices", "slices_with_leader", "lead")
        ]
        arrays.append((np.asarray(mine.offset), np.asarray(theirs.offset)))
    return all(
        (x is None and y is None) or (x is not None and y is not None and np.array_equal(x, y))
        for x, y in arrays
    )


@SETTINGS
@given(scenarios(), st.data())
def test_kept_phase_one_updated_on_changed_rows_is_a_fresh_one(
    scenario: Scenario, data: st.DataObject
) -> None:
    """Usage added and removed on a few nodes at a time (kept phase 1 is then updated on those
    rows only): every request's kept numbers are phase 1 made afresh, and places the same."""
    snapshot = scenario.snapshot()
    caches = EngineCaches()
    tree = snapshot.tree
    reasons = Reasons(scenario.gang.name, tree.topology.name, Policy.MIXED)
    units = units_of(scenario.gang.root, reasons)
    assert not isinstance(units, Unschedulable)
    requests = [compile_unit(unit, tree, as_policy(Policy.MIXED), reasons) for unit in units]
    names = tree.node_names
    for step in range(data.draw(st.integers(1, 5))):
        for req in requests:
            if isinstance(req, Unschedulable):
                continue
            for _ in range(data.draw(st.integers(1, 3))):  # made, counts kept, kept shared
                nodes, counts, shared = for_snapshot(snapshot, caches).solve(
                    tree, Ledger(snapshot.free, snapshot.columns), req
                )
                fresh = phase_one(tree, Ledger(snapshot.free, snapshot.columns), req)
                assert same_phase_one(nodes, counts, fresh)
                if shared is not None and tree.depth:
                    level = data.draw(st.integers(0, tree.leaf_level))
                    picked = data.draw(st.sets(st.integers(0, tree.count(level) - 1), min_size=1))
                    below = shared.below(tree, level, np.asarray(sorted(picked), dtype=np.int64))
                    assert all(not lc.pods.flags.writeable for lc in below[:level])
                    lo, hi = min(picked), max(picked) + 1
                    for lvl in range(level, tree.depth):
                        assert below[lvl].offset == lo
                        expected = replace(fresh, counts=[fresh.counts[lvl].copy(lo, hi)])
                        assert same_phase_one(None, [below[lvl]], expected)
                        if lvl < tree.leaf_level:
                            lo, hi = (
                                tree.descendants(lvl, lo, lvl + 1)[0],
                                tree.descendants(lvl, hi - 1, lvl + 1)[1],
                            )
        placed = place_gang(scenario.gang, snapshot, policy=Policy.MIXED)
        assert same_result(placed, place_gang(scenario.gang, snapshot.clone(), policy=Policy.MIXED))
        keys = snapshot.usage_keys()
        if keys and data.draw(st.booleans()):
            snapshot.remove_usage(data.draw(st.sampled_from(keys)))
        else:
            chosen = data.draw(st.lists(st.sampled_from(names), max_size=2)) if names else []
            cpu = data.draw(st.integers(-1, 3))
            snapshot.add_usage(f"w{step % 3}", {name: Resources({CPU: cpu, PODS: 1}) for name in chosen})
