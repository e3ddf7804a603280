"""Phase 1 kept per snapshot version answers as phase 1 made afresh would.

``place_gang`` takes the first request's phase 1 from ``phase_one.for_snapshot`` when a
placement before it made the same kind on the same snapshot version; the readable twin places
on a new snapshot of the same cluster (nothing kept). Placements alternate between gangs and
commit some of them (a new snapshot version: nothing kept applies any more).
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from tests.engine.test_properties import SETTINGS, Scenario, scenarios
from tests.engine.test_space_reuse import same_result

from toposched.engine import place_gang, usage_of
from toposched.model import Placement, Resources
from toposched.snapshot import Snapshot


@SETTINGS
@given(scenarios(), scenarios(), st.lists(st.tuples(st.booleans(), st.booleans()), min_size=1, max_size=5))
def test_kept_phase_one_places_as_a_fresh_one(
    first: Scenario, second: Scenario, steps: list[tuple[bool, bool]]
) -> None:
    snapshot = first.snapshot()
    committed: list[tuple[str, dict[str, Resources]]] = []
    for k, (which, commit) in enumerate(steps):
        scenario = (first, second)[which]
        # Made afresh (per-node numbers kept), then counts kept, then kept counts copied.
        kept, *again = (place_gang(scenario.gang, snapshot, policy=scenario.policy) for _ in range(3))
        fresh_snapshot: Snapshot = first.snapshot()
        for key, usage in committed:
            fresh_snapshot.add_usage(key, usage)
        fresh = place_gang(scenario.gang, fresh_snapshot, policy=scenario.policy)
        assert all(same_result(placed, fresh) for placed in (kept, *again))
        if commit and isinstance(kept, Placement):
            usage = usage_of(kept, scenario.gang)
            snapshot.add_usage(f"g{k}", usage)
            committed.append((f"g{k}", usage))
