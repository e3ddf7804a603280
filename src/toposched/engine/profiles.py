"""Which ordering each request uses under each ``Policy`` (Kueue's TAS profiles): the one place
that composes the policy modules (``toposched.engine.policies``), which know nothing of each
other."""

from __future__ import annotations

from toposched.engine.policies.bestfit import BEST_FIT
from toposched.engine.policies.leastfree import LEAST_FREE
from toposched.engine.policies.mixed import Mixed
from toposched.engine.strategy import Strategy
from toposched.model import Mode, Policy

MIXED = Mixed(constrained=BEST_FIT, unconstrained=LEAST_FREE)


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
    return MIXED.for_request(mode), policy is Policy.BALANCED and mode is Mode.PREFERRED


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
    if policy in (Policy.BESTFIT, Policy.BALANCED):
        return BEST_FIT
    return MIXED.for_group(constrained)
