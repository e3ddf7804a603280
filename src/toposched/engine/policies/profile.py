"""Which ordering each request uses under each ``Policy`` (Kueue's TAS profiles)."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from toposched.engine.policies.base import Strategy
from toposched.engine.policies.bestfit import BEST_FIT
from toposched.engine.policies.leastfree import LEAST_FREE
from toposched.model import Mode, Policy


def strategy_for(policy: Policy, mode: Mode) -> tuple[Strategy, bool]:
    """The greedy ordering for a request in ``mode``, and whether balanced placement is tried.

    MIXED (Kueue's default): BestFit for required/preferred, LeastFreeCapacity for unconstrained
    (implied and slice-only requests included). BALANCED: MIXED, plus balanced placement for
    preferred requests (falling back to BestFit). BESTFIT / LEASTFREE: one ordering everywhere.
    """
    if policy is Policy.LEASTFREE:
        return LEAST_FREE, False
    if policy in (Policy.BESTFIT, Policy.BINPACK):
        # place_gang sends BINPACK gangs to the hierarchical solver (policies/binpack.py); only
        # Kueue's node replacement reaches here with BINPACK, and BestFit is its closest ordering.
        return BEST_FIT, False
    if mode is Mode.UNCONSTRAINED:
        return LEAST_FREE, False
    return BEST_FIT, policy is Policy.BALANCED and mode is Mode.PREFERRED


# -- the hierarchical solver under a Kueue policy ------------------------------------------------


def hierarchy_strategy(policy: Policy, constrained: bool) -> Strategy | None:
    """The ordering the hierarchical solver uses for a group: None = KAI's binpack
    (``policies/binpack.py``), else a Kueue ordering over the same candidate domains.

    ``constrained``: the group or an ancestor has a required or preferred level (MIXED then takes
    BestFit, else LeastFreeCapacity). BALANCED falls back to BestFit: balanced placement spreads
    one request over the domains of a level, which a tree of groups with their own constraints
    and minimums does not map onto.
    """
    if policy is Policy.BINPACK:
        return None
    if policy is Policy.LEASTFREE:
        return LEAST_FREE
    if policy in (Policy.BESTFIT, Policy.BALANCED) or constrained:
        return BEST_FIT
    return LEAST_FREE


def greedy_pick(
    room: npt.NDArray[np.int64], ids: npt.NDArray[np.int64], count: int, strategy: Strategy, *, whole: bool
) -> list[tuple[int, int]]:
    """Kueue's greedy over one level: (position in ``room``, pods) pairs for ``count`` pods,
    fewer in total when the room runs out.

    Items are taken most room first (``strategy.descending``) or least room first, ties by
    ``ids`` ascending. With ``optimize_last`` the item that would take the rest is swapped for
    the one with the least room (then first in order) that still holds the rest. ``whole``:
    this is a level the request prefers, so with ``first_fit_level`` the first item in order
    that holds everything is taken alone.
    """
    if count <= 0 or len(room) == 0:
        return []
    order = np.lexsort((ids, -room if strategy.descending else room))
    ranked = room[order]
    if whole and strategy.first_fit_level and (ranked >= count).any():
        return [(int(order[int(np.argmax(ranked >= count))]), count)]
    reached = np.cumsum(ranked)
    last = int(np.searchsorted(reached, count, side="left"))
    if last >= len(order):
        return [(int(i), int(r)) for i, r in zip(order, ranked, strict=True) if r > 0]
    rest = count - (int(reached[last - 1]) if last else 0)
    picked = [(int(i), int(r)) for i, r in zip(order[:last], ranked[:last], strict=True) if r > 0]
    final = last
    if strategy.optimize_last:
        tail = ranked[last:]
        final = last + int(np.argmin(np.where(tail >= rest, tail, np.iinfo(np.int64).max)))
    return [*picked, (int(order[final]), rest)]
