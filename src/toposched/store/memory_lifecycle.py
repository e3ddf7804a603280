"""A ``MemoryStore`` workload's way after admission: started, released (finished or cancelled),
evicted or requeued; each idempotent, each freeing what the new state no longer holds."""

from __future__ import annotations

import dataclasses

from toposched.store import rules
from toposched.store.memory_records import MemoryRecords, kept
from toposched.store.records import EventRecord, Json, WorkloadRecord, WorkloadState


class MemoryLifecycle(MemoryRecords):
    """The state changes of the ``Store`` protocol after admission, over ``MemoryStore``'s state."""

    def start(self, workload_id: int, event: EventRecord) -> WorkloadRecord:
        """Admitted -> running; idempotent."""
        with self._changing():
            record = self._get(workload_id)
            if not rules.check_start(record):
                return record
            return self._transition(record, event, state=WorkloadState.RUNNING, free=False)

    def release(self, workload_id: int, new_state: WorkloadState, event: EventRecord) -> WorkloadRecord:
        """End a workload as finished or cancelled, freeing its reservations; idempotent."""
        with self._changing():
            record = self._get(workload_id)
            if not rules.check_release(record, new_state):
                return record
            return self._transition(record, event, state=new_state, free=True)

    def evict(self, workload_id: int, event: EventRecord, explanation: Json = None) -> WorkloadRecord:
        """Admitted/running -> evicted, freeing its reservations; idempotent."""
        with self._changing():
            record = self._get(workload_id)
            if not rules.check_evict(record):
                return record
            record = dataclasses.replace(record, placement=None, explanation=kept(explanation))
            return self._transition(record, event, state=WorkloadState.EVICTED, free=True)

    def requeue(self, workload_id: int, event: EventRecord, *, to_back: bool = False) -> WorkloadRecord:
        """Back to pending, freeing any reservations; idempotent."""
        with self._changing():
            record = self._get(workload_id)
            if not rules.check_requeue(record):
                return record
            record = dataclasses.replace(record, placement=None)
            self._pending_since[workload_id] = event.time
            if to_back:
                record = dataclasses.replace(record, sequence=self._next_sequence)
                self._next_sequence += 1
            return self._transition(record, event, state=WorkloadState.PENDING, free=True)
