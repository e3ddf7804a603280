"""Which ordering each request uses under each ``Policy`` (Kueue's TAS profiles)."""

from __future__ import annotations

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
