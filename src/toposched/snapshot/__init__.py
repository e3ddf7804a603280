"""Per-cycle numpy arrays of free capacity over a topology tree, and per-shape pod capacity."""

from toposched.snapshot.capacity import (
    BoolArray,
    ExclusionStats,
    PodShape,
    eligible,
    exclusion_stats,
    fits_count,
    level_sums,
    limiting_index,
    limiting_resources,
    per_slot_requests,
)
from toposched.snapshot.snapshot import Snapshot

__all__ = [
    "BoolArray",
    "ExclusionStats",
    "PodShape",
    "Snapshot",
    "eligible",
    "exclusion_stats",
    "fits_count",
    "level_sums",
    "limiting_index",
    "limiting_resources",
    "per_slot_requests",
]
