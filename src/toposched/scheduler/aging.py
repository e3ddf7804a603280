"""Aging: a pending gang's place in the queue rises with its wait, so none waits forever.

The order of a cycle is by effective priority (high first), then arrival: a gang's priority
plus one for every ``SchedulerConfig.aging_seconds`` it has waited since it became pending: its
submission, or its last requeue after an eviction or preemption, as the store records it
(``QueueEntry.since``), so a restarted service counts the same waits. A gang keeps the rank it
reached when it is admitted: as a victim of preemption it counts with that rank
(``running.Held.priority``), so a gang let through by aging is not evicted at once by the gangs
it overtook. A preemptor is ranked by its own priority: waiting gives a gang its turn, not the
right to evict.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

from toposched.store import QueueEntry


class Ages:
    """When the loop first saw each pending gang waiting."""

    def __init__(self) -> None:
        self.since: dict[int, float] = {}
        self._stored: dict[int, float | None] = {}  # the store's ``since`` of each when last listed

    def order(
        self, pending: Sequence[QueueEntry], now: float, aging_seconds: float | None
    ) -> list[QueueEntry]:
        """``pending`` in the cycle's order; gangs not seen before, or requeued since (the
        store's time changed: admitted and evicted between two cycles), wait since the store
        says (``now`` when it does not know), and gangs no longer pending are forgotten."""
        known = {e.id for e in pending if e.id in self.since and self._stored.get(e.id) == e.since}
        self.since = {e.id: self.since[e.id] if e.id in known else _since(e, now) for e in pending}
        self._stored = {entry.id: entry.since for entry in pending}
        return self.ranked(pending, now, aging_seconds)

    def ranked(
        self, pending: Iterable[QueueEntry], now: float, aging_seconds: float | None
    ) -> list[QueueEntry]:
        """``pending`` in the cycle's order, as of ``now``, remembering nothing."""

        def key(entry: QueueEntry) -> tuple[int, int, int]:
            return (-self.effective(entry.id, entry.priority, now, aging_seconds), entry.sequence, entry.id)

        return sorted(pending, key=key)

    def effective(self, workload: int, priority: int, now: float, aging_seconds: float | None) -> int:
        """``priority`` plus one per ``aging_seconds`` the workload waited (just ``priority``
        without aging)."""
        if aging_seconds is None:
            return priority
        waited = max(0.0, now - self.since.get(workload, now))
        return priority + math.floor(waited / aging_seconds)


def _since(entry: QueueEntry, now: float) -> float:
    """When ``entry`` became pending: as stored, never after ``now``."""
    return now if entry.since is None else min(entry.since, now)
