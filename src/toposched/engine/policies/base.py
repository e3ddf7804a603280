"""What a greedy ordering policy decides, as data the shared Kueue-style algorithm reads."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Strategy:
    """One greedy domain ordering.

    ``descending``: domains with more free slices come first (BestFit) or fewer (LeastFreeCapacity);
    ties always go to the tighter domain (fewer pods), then to the domain path.
    ``optimize_last``: when the current domain could take everything that remains, swap in the
    tightest domain further down the list that still can (Kueue's "optimize the last domain").
    ``first_fit_level``: at the requested level take the first domain, in order, that holds the
    whole request (the smallest one for an ascending order) instead of the tightest fit.
    """

    name: str
    descending: bool
    optimize_last: bool
    first_fit_level: bool
