"""Index ranges of the topology tree: a level's children, or descendants, form one range each."""

from __future__ import annotations

import numpy as np

from toposched.topology import IntArray


def expand(starts: IntArray, ends: IntArray) -> IntArray:
    """Concatenation of the index ranges [starts[i], ends[i]) in order."""
    if len(starts) == 1:
        return np.arange(int(starts[0]), int(ends[0]), dtype=np.int64)
    lengths = ends - starts
    reached: IntArray = lengths.cumsum()
    total = int(reached[-1]) if len(reached) else 0
    if total == 0:
        return np.zeros(0, dtype=np.int64)
    # Position p of range i holds p + starts[i] - (sum of the lengths before i) = p + ends[i] - reached[i].
    return np.arange(total, dtype=np.int64) + np.repeat(ends - reached, lengths)
