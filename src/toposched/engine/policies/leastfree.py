"""LeastFreeCapacity: fewest free slices first, no swapping of the last domain, so small holes are
filled before large domains are touched (less fragmentation for unconstrained requests)."""

from __future__ import annotations

from toposched.engine.policies.base import Strategy

LEAST_FREE = Strategy("LeastFreeCapacity", descending=False, optimize_last=False, first_fit_level=True)
