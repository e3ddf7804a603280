"""A ``SqliteStore`` workload's way after admission: started, released (finished or cancelled,
grouped with other request-path writes), evicted or requeued; each idempotent, each freeing what
the new state no longer holds."""

from __future__ import annotations

import dataclasses
import sqlite3

from toposched.store import rules
from toposched.store.codecs import dumps
from toposched.store.records import EventRecord, Json, WorkloadRecord, WorkloadState
from toposched.store.sqlite_rows import next_sequence, read_workload, transition
from toposched.store.sqlite_writes import SqliteWrites


class SqliteLifecycle(SqliteWrites):
    """The state changes of the ``Store`` protocol after admission, over ``SqliteStore``'s
    transactions."""

    def start(self, workload_id: int, event: EventRecord) -> WorkloadRecord:
        """Admitted -> running; idempotent."""
        with self._tx("starting a workload", write=True) as db:
            record = read_workload(db, workload_id)
            if rules.check_start(record):
                transition(db, record, event, WorkloadState.RUNNING, free=False)
            return read_workload(db, workload_id)

    def release(self, workload_id: int, new_state: WorkloadState, event: EventRecord) -> WorkloadRecord:
        """End a workload as finished or cancelled, freeing its reservations; idempotent."""
        return self._grouped(
            "releasing a workload", lambda db: self._release(db, workload_id, new_state, event)
        )

    def _release(
        self, db: sqlite3.Connection, workload_id: int, new_state: WorkloadState, event: EventRecord
    ) -> WorkloadRecord:
        record = read_workload(db, workload_id)
        if not rules.check_release(record, new_state):
            return record
        transition(db, record, event, new_state, free=True)
        return dataclasses.replace(record, state=new_state)  # the row as it now reads

    def evict(self, workload_id: int, event: EventRecord, explanation: Json = None) -> WorkloadRecord:
        """Admitted/running -> evicted, freeing its reservations; idempotent."""
        text = None if explanation is None else dumps(explanation)
        with self._tx("evicting a workload", write=True) as db:
            record = read_workload(db, workload_id)
            if rules.check_evict(record):
                db.execute(
                    "UPDATE workloads SET placement = NULL, explanation = ? WHERE id = ?", (text, workload_id)
                )
                transition(db, record, event, WorkloadState.EVICTED, free=True)
            return read_workload(db, workload_id)

    def requeue(self, workload_id: int, event: EventRecord, *, to_back: bool = False) -> WorkloadRecord:
        """Back to pending, freeing any reservations; idempotent."""
        with self._tx("requeueing a workload", write=True) as db:
            record = read_workload(db, workload_id)
            if rules.check_requeue(record):
                db.execute(
                    "UPDATE workloads SET placement = NULL, pending_since = ? WHERE id = ?",
                    (event.time, workload_id),
                )
                if to_back:
                    db.execute(
                        "UPDATE workloads SET sequence = ? WHERE id = ?",
                        (next_sequence(db), workload_id),
                    )
                transition(db, record, event, WorkloadState.PENDING, free=True)
            return read_workload(db, workload_id)
