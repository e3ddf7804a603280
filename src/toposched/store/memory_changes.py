"""What changed in ``MemoryStore`` since a reader last looked: nodes and bookings by generation.

The in-memory twin of ``sqlite_changes``. Each change takes the next generation of its
``ChangeLog``, which keeps keys in the order of their last change, so the keys changed after a
generation are read from the newest end, as many as changed. Keys of deleted values stay (a reader
must learn of the deletion) until there are ``slack`` more keys than live values; then the log
starts over and readers older than that read everything.
"""

from __future__ import annotations

import threading
from typing import Generic, TypeVar

from toposched.model import Node, Resources
from toposched.store.records import BookingChanges, NodeChanges, WorkloadRecord, WorkloadState

K = TypeVar("K")
_HOLDING = tuple(s for s in WorkloadState if s.holds_capacity)


class ChangeLog(Generic[K]):
    """Keys by generation of their last change, newest last."""

    __slots__ = ("_floor", "_order", "_slack", "generation")

    def __init__(self, slack: int = 4096) -> None:
        self._order: dict[K, int] = {}
        self._slack = slack
        self._floor = 0  # readers older than this read everything
        self.generation = 0

    def touch(self, key: K, live: int) -> None:
        """``key`` changed; ``live`` values are stored now (bounds the keys kept)."""
        self.generation += 1
        self._order.pop(key, None)
        self._order[key] = self.generation
        if len(self._order) > live + self._slack:
            self.restart()

    def restart(self) -> None:
        """Everything changed (a full replace): readers older than now read everything."""
        self.generation += 1
        self._order.clear()
        self._floor = self.generation

    def since(self, since: int | None) -> list[K] | None:
        """The keys changed after generation ``since``, newest first; None when that cannot be
        told (``since`` None, older than the log, or newer than it)."""
        if since is None or since < self._floor or since > self.generation:
            return None
        changed: list[K] = []
        order = self._order
        for key in reversed(order):
            if order[key] <= since:
                break
            changed.append(key)
        return changed


class MemoryChanges:
    """The change reads of the ``Store`` protocol, over ``MemoryStore``'s state and lock."""

    _lock: threading.RLock
    _nodes: dict[str, Node]
    _workloads: dict[int, WorkloadRecord]
    _by_state: dict[WorkloadState, set[int]]
    _reservations: dict[int, dict[str, Resources]]
    _node_log: ChangeLog[str]
    _booking_log: ChangeLog[int]

    def node_changes(self, since: int | None = None) -> NodeChanges:
        """The nodes written or deleted after generation ``since`` (see ``Store``)."""
        with self._lock:
            log = self._node_log
            changed = log.since(since)
            if changed is None:
                return NodeChanges(
                    log.generation, tuple(self._nodes[n] for n in sorted(self._nodes)), (), True
                )
            nodes = tuple(self._nodes[n] for n in sorted(changed) if n in self._nodes)
            removed = tuple(n for n in sorted(changed) if n not in self._nodes)
            return NodeChanges(log.generation, nodes, removed, False)

    def booking_changes(self, since: int | None = None) -> BookingChanges:
        """The workloads whose bookings changed after generation ``since`` (see ``Store``)."""
        with self._lock:
            log = self._booking_log
            changed = log.since(since)
            if changed is None:
                records = [self._workloads[w] for s in _HOLDING for w in self._by_state[s]]
            else:
                records = [self._workloads[w] for w in changed if w in self._workloads]
            holding = sorted((r for r in records if r.state.holds_capacity), key=_arrival)
            released: dict[int, WorkloadState | None] = {}
            if changed is not None:
                released = {w: None for w in changed if w not in self._workloads}
                released.update({r.id: r.state for r in records if not r.state.holds_capacity})
            reservations = {r.id: dict(self._reservations.get(r.id, {})) for r in holding}
            return BookingChanges(log.generation, tuple(holding), reservations, released, changed is None)


def _arrival(record: WorkloadRecord) -> tuple[int, int]:
    return record.sequence, record.id
