"""Domain orderings: BestFit, LeastFreeCapacity, balanced placement, the profile mapping, and
``binpack`` (KAI's ordering, used by the hierarchical solver)."""

from toposched.engine.policies.base import Strategy
from toposched.engine.policies.bestfit import BEST_FIT, best_fit_position
from toposched.engine.policies.leastfree import LEAST_FREE
from toposched.engine.policies.profile import strategy_for

__all__ = ["BEST_FIT", "LEAST_FREE", "Strategy", "best_fit_position", "strategy_for"]
