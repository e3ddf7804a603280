"""Bookings on a session's snapshots, journaled so they can be undone (KAI's ``Statement``).

A caller that places several gangs on the same snapshots, each around the ones before it, books
each placement here (``book``) and can give bookings back (``unbook``, e.g. a workload that would
end). ``checkpoint`` marks the journal, ``rollback`` undoes everything after a mark (a plan that
did not work out), and ``commit`` keeps what is booked and forgets the journal. Booking a key
again replaces its usage; the snapshots see every change at once (``Snapshot.add_usage`` and
``remove_usage``), so the next placement on them sees it too.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from toposched.model import Resources
from toposched.snapshot import Snapshot

Usage = Mapping[str, Resources]  # per node name, ``pods`` slots included (``usage_of``)


class Statement:
    """Journaled bookings on ``snapshots``; ``booked``: what is booked on them already, by key
    (so that giving one back can be undone)."""

    def __init__(self, snapshots: Sequence[Snapshot], booked: Mapping[str, Usage] | None = None) -> None:
        self._snapshots = tuple(snapshots)
        self._booked: dict[str, Usage] = dict(booked or {})
        self._journal: list[tuple[str, Usage | None]] = []  # key, and its usage before the change

    @property
    def booked(self) -> Mapping[str, Usage]:
        """What is booked now, by key."""
        return self._booked

    def book(self, key: str, usage: Usage) -> None:
        """Book ``usage`` under ``key`` on every snapshot (replacing what the key had)."""
        self._journal.append((key, self._booked.get(key)))
        self._apply(key, usage)

    def unbook(self, key: str) -> None:
        """Give back what ``key`` booked (nothing when it booked nothing)."""
        if key not in self._booked:
            return
        self._journal.append((key, self._booked[key]))
        self._apply(key, None)

    def checkpoint(self) -> int:
        """A mark to roll back to."""
        return len(self._journal)

    def rollback(self, mark: int = 0) -> None:
        """Undo every booking and unbooking made after ``mark``, newest first."""
        while len(self._journal) > mark:
            key, before = self._journal.pop()
            self._apply(key, before)

    def commit(self) -> None:
        """Keep what is booked: nothing before now can be rolled back any more."""
        self._journal.clear()

    def _apply(self, key: str, usage: Usage | None) -> None:
        for snapshot in self._snapshots:
            if usage is None:
                snapshot.remove_usage(key)
            else:
                snapshot.add_usage(key, usage)
        if usage is None:
            self._booked.pop(key, None)
        else:
            self._booked[key] = usage
