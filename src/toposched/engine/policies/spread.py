"""Spread (worst fit), a baseline to measure the packing policies against: the domain with the
most free slices is searched first and takes the request, and the order stands for the last
pods too (no swap to the tightest domain), so every gang lands where the most room is left.
LeastFreeCapacity's rules with the order turned round; written out, as each policy stands alone."""

from __future__ import annotations

from toposched.snapshot import BoolArray
from toposched.topology import IntArray


class MostFree:
    descending = True

    def level_domain(self, capacity: IntArray, fits: BoolArray, needed: int) -> int | None:
        """The first domain in order (the most free) that holds the request."""
        return int(fits.argmax()) if fits.any() else None

    def last_domains(self, units: IntArray, lengths: IntArray, first: IntArray, needed: IntArray) -> IntArray:
        """The order stands: the most free domain reached takes the last pods."""
        return first


SPREAD = MostFree()
