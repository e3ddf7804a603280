"""Domain orderings, one module each behind the ``Strategy`` protocol (``base``): BestFit,
LeastFreeCapacity, Mixed (Kueue's default profile), balanced placement, and ``binpack`` (KAI's
ordering, used by the hierarchical solver). ``profile`` maps each ``Policy`` to them."""

from toposched.engine.policies.base import Strategy
from toposched.engine.policies.bestfit import BEST_FIT
from toposched.engine.policies.leastfree import LEAST_FREE
from toposched.engine.policies.profile import hierarchy_strategy, strategy_for

__all__ = ["BEST_FIT", "LEAST_FREE", "Strategy", "hierarchy_strategy", "strategy_for"]
