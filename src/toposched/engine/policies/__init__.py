"""Domain orderings: BestFit, LeastFreeCapacity, balanced placement, and the profile mapping."""

from toposched.engine.policies.base import Strategy
from toposched.engine.policies.bestfit import BEST_FIT, best_fit_position
from toposched.engine.policies.leastfree import LEAST_FREE
from toposched.engine.policies.profile import strategy_for

__all__ = ["BEST_FIT", "LEAST_FREE", "Strategy", "best_fit_position", "strategy_for"]
