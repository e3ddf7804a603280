"""The workloads of ``MemoryStore``: submitting (with the owner's quota), reading, the queue
and explanations."""

from __future__ import annotations

import dataclasses
from collections.abc import Collection
from typing import TYPE_CHECKING

from toposched.model import Quota, Usage
from toposched.store import rules
from toposched.store.memory_records import MemoryRecords, arrival, kept
from toposched.store.records import EventRecord, Json, QueueEntry, WorkloadRecord, WorkloadState


class MemoryWorkloads(MemoryRecords):
    """The workload methods of the ``Store`` protocol, over ``MemoryStore``'s state and lock."""

    _quotas: dict[str, Quota]
    _next_id: int

    if TYPE_CHECKING:  # MemoryQuotas' (a stub here would hide it at run time)

        def pending_usage(self, owner: str) -> Usage: ...

    def submit_workload(
        self, record: WorkloadRecord, event: EventRecord | None = None, quota: Quota | None = None
    ) -> WorkloadRecord:
        """Store a new pending workload (and ``event`` for it); assigns ``id`` and ``sequence``.
        ``quota`` (or the owner's own) is checked first."""
        with self._changing():
            quota = self._quotas.get(record.owner, quota)
            if quota is not None:
                rules.check_quota(
                    record.owner, self.pending_usage(record.owner), rules.usage_of(record), quota
                )
            entry = self._event(event, self._next_id) if event is not None else None
            stored = dataclasses.replace(
                record,
                id=self._next_id,
                sequence=self._next_sequence,
                state=WorkloadState.PENDING,
                placement=None,
                explanation=None,
            )
            self._next_id += 1
            self._next_sequence += 1
            self._put(stored)
            if entry is not None:
                self._log(entry)
            return stored

    def get_workload(self, workload_id: int) -> WorkloadRecord:
        """One workload by id."""
        with self._lock:
            return self._get(workload_id)

    def list_workloads(
        self, owner: str | None = None, states: Collection[WorkloadState] | None = None
    ) -> list[WorkloadRecord]:
        """Workloads in arrival order, optionally only one owner's and only some states."""
        with self._lock:
            found = [w for w in self._in_states(states) if owner is None or w.owner == owner]
            return sorted(found, key=arrival)

    def page_workloads(
        self,
        *,
        owner: str | None = None,
        states: Collection[WorkloadState] | None = None,
        after: int = 0,
        limit: int,
    ) -> list[WorkloadRecord]:
        """One page of workloads in id order: ids above ``after``, at most ``limit``."""
        with self._lock:
            found = [
                w
                for w in sorted(self._in_states(states), key=lambda w: w.id)
                if w.id > after and (owner is None or w.owner == owner)
            ]
            return found[:limit]

    def queue(self, states: Collection[WorkloadState]) -> list[QueueEntry]:
        """Id, priority, sequence and time pending since of the workloads in ``states``, in
        arrival order."""
        with self._lock:
            return [
                QueueEntry(w.id, w.priority, w.sequence, self._pending_since.get(w.id, w.submitted_at))
                for w in sorted(self._in_states(states), key=arrival)
            ]

    def set_explanation(self, workload_id: int, explanation: Json) -> WorkloadRecord:
        """Record why a workload waits, without changing its state."""
        with self._changing():
            return self._write(dataclasses.replace(self._get(workload_id), explanation=kept(explanation)))
