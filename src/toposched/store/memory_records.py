"""The records ``MemoryStore`` keeps and the helpers its mixins share: workloads indexed by state,
their bookings with per-node totals, and the event log. Every change of a record goes through
``_write``, which keeps the record as it was while ``write_decisions`` runs, for its roll-back."""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable, Collection
from contextlib import AbstractContextManager

from toposched.model import EMPTY, NotFoundError, Resources
from toposched.store.codecs import copy_json
from toposched.store.frozen import frozen_copy
from toposched.store.memory_changes import ChangeLog
from toposched.store.records import ACTIVE_STATES, EventRecord, Json, WorkloadRecord, WorkloadState


class MemoryRecords:
    """State and helpers shared by ``MemoryStore``'s mixins (its ``__init__`` sets the state)."""

    _history: bool
    _lock: threading.RLock
    _changing: Callable[[], AbstractContextManager[None]]
    _workloads: dict[int, WorkloadRecord]
    _pending_since: dict[int, float]  # workloads requeued: when (else pending since submission)
    _by_state: dict[WorkloadState, set[int]]
    _before: dict[int, WorkloadRecord | None] | None
    _reservations: dict[int, dict[str, Resources]]
    _booked: dict[str, Resources]
    _events: list[EventRecord]
    _last_seq: int
    _next_sequence: int
    _booking_log: ChangeLog[int]

    def _get(self, workload_id: int) -> WorkloadRecord:
        if workload_id not in self._workloads:
            raise NotFoundError("workload", str(workload_id))
        return self._workloads[workload_id]

    def _reserve(self, workload: int, per_node: dict[str, Resources]) -> None:
        """Book a workload's reservations and add them to the per-node totals."""
        self._booking_log.touch(workload, len(self._workloads))
        self._reservations[workload] = per_node
        for node, amount in per_node.items():
            self._booked[node] = self._booked.get(node, EMPTY) + amount

    def _free(self, workload: int) -> None:
        """Drop a workload's reservations and take them off the per-node totals."""
        self._booking_log.touch(workload, len(self._workloads))
        for node, amount in self._reservations.pop(workload, {}).items():
            left = self._booked[node] - amount
            if left:
                self._booked[node] = left
            else:
                del self._booked[node]

    def _live(self) -> list[WorkloadRecord]:
        return sorted(self._in_states(ACTIVE_STATES), key=lambda w: w.id)

    def _in_states(self, states: Collection[WorkloadState] | None) -> list[WorkloadRecord]:
        """The workloads in ``states`` (all for None), in no particular order."""
        if states is None:
            return list(self._workloads.values())
        return [self._workloads[i] for state in set(states) for i in self._by_state.get(state, ())]

    def _write(self, record: WorkloadRecord) -> WorkloadRecord:
        """Store a changed record (kept for roll-back while ``write_decisions`` runs)."""
        if self._before is not None and record.id not in self._before:
            self._before[record.id] = self._workloads.get(record.id)
        self._put(record)
        return record

    def _put(self, record: WorkloadRecord) -> None:
        """Store a record and keep the state index in step."""
        self._drop(record.id)
        self._workloads[record.id] = record
        self._by_state[record.state].add(record.id)

    def _drop(self, workload: int) -> None:
        old = self._workloads.pop(workload, None)
        if old is not None:
            self._by_state[old.state].discard(workload)

    def _event(self, event: EventRecord, workload: int | None) -> EventRecord:
        self._last_seq += 1
        return dataclasses.replace(event, workload=workload, data=copy_json(event.data), seq=self._last_seq)

    def _log(self, entry: EventRecord) -> None:
        if self._history:
            self._events.append(entry)

    def _transition(
        self, record: WorkloadRecord, event: EventRecord, *, state: WorkloadState, free: bool
    ) -> WorkloadRecord:
        entry = self._event(event, record.id)
        if free:
            self._free(record.id)
        self._log(entry)
        written = self._write(dataclasses.replace(record, state=state))
        if state.terminal and not self._history:
            self._drop(record.id)
        return written


def kept(value: Json) -> Json:
    """What the store keeps of a caller's JSON: a checked, frozen deep copy (see ``frozen``)."""
    return frozen_copy(value)


def arrival(record: WorkloadRecord) -> tuple[int, int]:
    return record.sequence, record.id


def copy_event(event: EventRecord) -> EventRecord:
    return dataclasses.replace(event, data=copy_json(event.data))
