"""BestFit: most free slices first, and the last domain at every level is the tightest that fits
(Kueue's "optimize the last domain"); at the requested level the tightest domain that holds the
whole request."""

from __future__ import annotations

import numpy as np

from toposched.engine.core.counts import LevelCounts
from toposched.engine.core.strategy import SlicesFirst
from toposched.snapshot import BoolArray
from toposched.topology import IntArray

_NEVER = np.iinfo(np.int64).max


class BestFit(SlicesFirst):
    name = "BestFit"
    descending = True

    def level_domain(self, capacity: IntArray, fits: BoolArray, needed: int) -> int | None:
        """The tightest domain that holds the request, when the first in order does."""
        if len(fits) == 0 or not fits[0]:
            return None
        return self.last_domain(capacity, needed, fits)

    def level_miss(self, counts: LevelCounts, order: IntArray) -> tuple[int, int]:
        """The most free domain (first in order) and its slices."""
        first = int(order[0])
        return first, int(counts.slc[first - counts.offset])

    def last_domain(self, units: IntArray, needed: int, allowed: BoolArray | None = None) -> int:
        """The first domain with the fewest units that are still ``>= needed`` (among
        ``allowed``); 0 when none qualifies, which keeps the caller's order."""
        mask = units >= needed
        if allowed is not None:
            mask &= allowed
        if not mask.any():
            return 0
        return int(np.where(mask, units, _NEVER).argmin())

    def last_domains(self, units: IntArray, lengths: IntArray, first: IntArray, needed: IntArray) -> IntArray:
        """``last_domain`` per list, vectorised: among positions from ``first`` on that hold the
        list's ``needed``, the first with the fewest units (``first`` itself always qualifies)."""
        starts = lengths.cumsum() - lengths
        position = np.arange(len(units), dtype=np.int64)
        key = np.where(
            (position >= np.repeat(first, lengths)) & (units >= np.repeat(needed, lengths)), units, _NEVER
        )
        hits = np.flatnonzero(key == np.repeat(np.minimum.reduceat(key, starts), lengths))
        chosen: IntArray = hits[hits.searchsorted(first)]
        return chosen


BEST_FIT = BestFit()
