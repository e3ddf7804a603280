"""BestFit: most free slices first, and the last domain at every level is the tightest that fits
(Kueue's "optimize the last domain"); at the requested level the tightest domain that holds the
whole request."""

from __future__ import annotations

import numpy as np

from toposched.snapshot import BoolArray
from toposched.topology import IntArray

_NEVER = np.iinfo(np.int64).max


class BestFit:
    descending = True

    def level_domain(self, capacity: IntArray, fits: BoolArray, needed: int) -> int | None:
        """The tightest domain that holds the request, when the first in order does."""
        if len(fits) == 0 or not fits[0]:
            return None
        return int(np.where(fits & (capacity >= needed), capacity, _NEVER).argmin())

    def last_domains(self, units: IntArray, lengths: IntArray, first: IntArray, needed: IntArray) -> IntArray:
        """Per list, among positions from ``first`` on that hold the list's ``needed``, the first
        with the fewest units ("optimize the last domain"); ``first`` when none does."""
        starts = lengths.cumsum() - lengths
        position = np.arange(len(units), dtype=np.int64)
        key = np.where(
            (position >= np.repeat(first, lengths)) & (units >= np.repeat(needed, lengths)), units, _NEVER
        )
        hits = np.flatnonzero(key == np.repeat(np.minimum.reduceat(key, starts), lengths))
        chosen: IntArray = hits[hits.searchsorted(first)]
        return chosen


BEST_FIT = BestFit()
