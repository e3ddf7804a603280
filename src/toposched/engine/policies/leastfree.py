"""LeastFreeCapacity: fewest free slices first and no swapping of the last domain, so small holes
are filled before large domains are touched (less fragmentation for unconstrained requests). At
the requested level the first domain in that order that holds the whole request is taken."""

from __future__ import annotations

from toposched.engine.core.counts import LevelCounts
from toposched.engine.core.strategy import SlicesFirst
from toposched.snapshot import BoolArray
from toposched.topology import IntArray


class LeastFree(SlicesFirst):
    name = "LeastFreeCapacity"
    descending = False

    def level_domain(self, capacity: IntArray, fits: BoolArray, needed: int) -> int | None:
        """The first domain in order (the smallest) that holds the request."""
        return int(fits.argmax()) if fits.any() else None

    def level_miss(self, counts: LevelCounts, order: IntArray) -> tuple[int, int]:
        """The last domain in order (the most free) and its pods, as Kueue reports it."""
        last = int(order[-1])
        return last, int(counts.pod[last - counts.offset])

    def last_domain(self, units: IntArray, needed: int, allowed: BoolArray | None = None) -> int:
        """The order stands: the domain reached first takes the last pods."""
        return 0

    def last_domains(self, units: IntArray, lengths: IntArray, first: IntArray, needed: IntArray) -> IntArray:
        return first


LEAST_FREE = LeastFree()
