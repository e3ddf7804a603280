"""LeastFreeCapacity: fewest free slices first and no swapping of the last domain, so small holes
are filled before large domains are touched (less fragmentation for unconstrained requests). At
the requested level the first domain in that order that holds the whole request is taken."""

from __future__ import annotations

from toposched.snapshot import BoolArray
from toposched.topology import IntArray


class LeastFree:
    descending = False

    def level_domain(self, capacity: IntArray, fits: BoolArray, needed: int) -> int | None:
        """The first domain in order (the smallest) that holds the request."""
        return int(fits.argmax()) if fits.any() else None

    def last_domains(self, units: IntArray, lengths: IntArray, first: IntArray, needed: IntArray) -> IntArray:
        """The order stands: the domain reached first takes the last pods."""
        return first


LEAST_FREE = LeastFree()
