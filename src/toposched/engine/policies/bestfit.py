"""BestFit: most free slices first, and the last domain at every level is the tightest that fits."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from toposched.engine.policies.base import Strategy

BEST_FIT = Strategy("BestFit", descending=True, optimize_last=True, first_fit_level=False)

_NEVER = np.iinfo(np.int64).max


def best_fit_position(
    counts: npt.NDArray[np.int64], needed: int, allowed: npt.NDArray[np.bool_] | None = None
) -> int:
    """Position of the first domain with the smallest count that is still ``>= needed`` (among
    ``allowed`` ones); 0 when none qualifies, which keeps the caller's order."""
    mask = counts >= needed
    if allowed is not None:
        mask &= allowed
    if not mask.any():
        return 0
    return int(np.where(mask, counts, _NEVER).argmin())
