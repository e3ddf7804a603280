"""Each ordering policy answers the protocol's questions its own way (Kueue's TAS profiles)."""

from __future__ import annotations

import numpy as np

from toposched.engine.core.counts import LevelCounts
from toposched.engine.core.strategy import last_domain, level_miss, search_order
from toposched.engine.policies.balanced import balanced_place
from toposched.engine.policies.bestfit import BEST_FIT
from toposched.engine.policies.leastfree import LEAST_FREE
from toposched.engine.policies.mixed import Mixed
from toposched.engine.profiles import builtin
from toposched.model import Mode, Policy
from toposched.topology import IntArray


def ints(values: list[int]) -> IntArray:
    return np.asarray(values, dtype=np.int64)


def counts(pods: list[int], slices: list[int]) -> LevelCounts:
    lead = np.zeros(len(pods), dtype=np.int64)
    return LevelCounts(0, ints(pods), ints(pods), ints(slices), ints(slices), lead)


def test_search_order_is_most_or_least_free_first_then_tighter_then_path() -> None:
    lc = counts([8, 4, 6, 4], [2, 1, 2, 1])
    index = np.arange(4, dtype=np.int64)
    assert search_order(BEST_FIT, lc, index).tolist() == [2, 0, 1, 3]
    assert search_order(LEAST_FREE, lc, index).tolist() == [1, 3, 2, 0]


def test_the_one_domain_at_the_requested_level() -> None:
    # Units per domain in each policy's search order; False: the leader does not fit there.
    fits = np.asarray([True, False, True, False])
    assert BEST_FIT.level_domain(ints([5, 3, 3, 1]), fits, 3) == 2  # the tightest that holds it
    assert LEAST_FREE.level_domain(ints([1, 3, 3, 5]), fits[::-1], 3) == 1  # the first that does


def test_no_domain_holds_the_request() -> None:
    none = np.zeros(3, dtype=np.bool_)
    assert BEST_FIT.level_domain(ints([2, 1, 1]), none, 3) is None
    assert LEAST_FREE.level_domain(ints([1, 1, 2]), none, 3) is None


def test_a_required_miss_reports_the_most_free_domain_each_its_own_way() -> None:
    lc = counts([7, 3, 5], [3, 1, 2])
    # BestFit: first in its (descending) order, counted in slices; LeastFreeCapacity: last in its
    # (ascending) order, counted in pods, as Kueue words it.
    assert level_miss(BEST_FIT, lc, ints([0, 2, 1])) == (0, 3)
    assert level_miss(LEAST_FREE, lc, ints([1, 2, 0])) == (0, 7)


def test_only_best_fit_swaps_the_last_domain() -> None:
    units = ints([6, 2, 4, 3])
    assert last_domain(BEST_FIT, units, 3) == 3
    assert last_domain(BEST_FIT, units, 3, ints([1, 1, 1, 0]).astype(np.bool_)) == 2
    assert last_domain(LEAST_FREE, units, 3) == 0


def test_mixed_is_best_fit_for_constrained_and_least_free_for_the_rest() -> None:
    mixed = Mixed(constrained=BEST_FIT, unconstrained=LEAST_FREE)
    assert [mixed.for_request(m) for m in Mode] == [BEST_FIT, BEST_FIT, LEAST_FREE]
    assert (mixed.for_group(True), mixed.for_group(False)) == (BEST_FIT, LEAST_FREE)
    policies = builtin()
    assert policies.get(Policy.MIXED).for_request(Mode.UNCONSTRAINED) == (LEAST_FREE, None)
    assert policies.get(Policy.BALANCED).for_request(Mode.PREFERRED) == (BEST_FIT, balanced_place)
    assert policies.get(Policy.BALANCED).for_request(Mode.REQUIRED) == (BEST_FIT, None)
    assert policies.get(Policy.BINPACK).hierarchical and not policies.get(Policy.BESTFIT).hierarchical


def test_spread_takes_the_most_free_domain_and_never_swaps_the_last() -> None:
    spread = builtin().get("spread").for_request(Mode.REQUIRED)[0]
    lc = counts([8, 4, 6, 4], [2, 1, 2, 1])
    assert search_order(spread, lc, np.arange(4, dtype=np.int64)).tolist() == [2, 0, 1, 3]
    fits = np.asarray([False, True, True, False])
    assert spread.level_domain(ints([5, 4, 3, 1]), fits, 3) == 1  # the most free that holds it
    assert spread.level_domain(ints([2, 1]), np.zeros(2, dtype=np.bool_), 3) is None
    assert last_domain(spread, ints([6, 2, 4, 3]), 3) == 0  # BestFit would take 3 (the tightest)
    assert builtin().get("spread").for_group(False) is spread
