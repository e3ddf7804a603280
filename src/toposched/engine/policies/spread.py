"""Spread (worst fit), a baseline to measure the packing policies against: the domain with the
most free slices is searched first and takes the request, and the order stands for the last
pods too (no swap to the tightest domain), so every gang lands where the most room is left."""

from __future__ import annotations

from toposched.engine.counts import LevelCounts
from toposched.engine.strategy import SlicesFirst
from toposched.snapshot import BoolArray
from toposched.topology import IntArray


class Spread(SlicesFirst):
    name = "Spread"
    descending = True

    def level_domain(self, capacity: IntArray, fits: BoolArray, needed: int) -> int | None:
        """The first domain in order (the most free) that holds the request."""
        return int(fits.argmax()) if fits.any() else None

    def level_miss(self, counts: LevelCounts, order: IntArray) -> tuple[int, int]:
        """The most free domain (first in order) and its slices."""
        first = int(order[0])
        return first, int(counts.slc[first - counts.offset])

    def last_domain(self, units: IntArray, needed: int, allowed: BoolArray | None = None) -> int:
        """The order stands: the most free domain reached takes the last pods."""
        return 0

    def last_domains(self, units: IntArray, lengths: IntArray, first: IntArray, needed: IntArray) -> IntArray:
        return first


SPREAD = Spread()
