"""The workloads of ``SqliteStore`` (the ``workloads`` table): submitting (grouped, with the
owner's quota checked in the same transaction), reading, the queue and explanations."""

from __future__ import annotations

import sqlite3
from collections.abc import Collection

from toposched.model import Quota
from toposched.store import rules
from toposched.store.codecs import dumps, own_topologies_text, workload_from_row
from toposched.store.records import EventRecord, Json, QueueEntry, WorkloadRecord, WorkloadState
from toposched.store.sqlite_rows import (
    WORKLOAD_COLUMNS,
    insert_event,
    pending_usage,
    read_quota,
    read_workload,
    workload_filter,
)
from toposched.store.sqlite_writes import SqliteWrites


class SqliteWorkloads(SqliteWrites):
    """The workload methods of the ``Store`` protocol, over ``SqliteStore``'s transactions."""

    def submit_workload(
        self, record: WorkloadRecord, event: EventRecord | None = None, quota: Quota | None = None
    ) -> WorkloadRecord:
        """Store a new pending workload (and ``event`` for it); assigns ``id`` and ``sequence``.
        ``quota`` (or the owner's own) is checked inside the same transaction.

        Group commit (``batching.GroupCommit``): submissions and releases that arrive while
        another batch is committing wait, and the next of them commits all waiting ones in one
        transaction (one fsync). Each call still returns only after the transaction holding its
        workload committed.
        """
        return self._grouped(
            "submitting a workload", lambda db: self._insert_workload(db, record, event, quota)
        )

    def _insert_workload(
        self, db: sqlite3.Connection, record: WorkloadRecord, event: EventRecord | None, quota: Quota | None
    ) -> WorkloadRecord:
        adding = rules.usage_of(record)
        quota = read_quota(db, record.owner) or quota
        if quota is not None:
            rules.check_quota(record.owner, pending_usage(db, record.owner), adding, quota)
        # One statement assigns the next sequence, inserts and reads the row back: every SQLite
        # call lets other threads take the GIL, and winning it back can take a switch interval.
        rows = db.execute(
            "INSERT INTO workloads (sequence, name, kind, owner, spec, priority, topology, pool,"
            " submitted_at, state, own_topologies, pods, spec_bytes) VALUES"
            " ((SELECT COALESCE(MAX(sequence), 0) + 1 FROM workloads),"
            f" ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING {WORKLOAD_COLUMNS}",
            (
                record.name,
                record.kind,
                record.owner,
                record.spec,
                record.priority,
                record.topology,
                record.pool,
                record.submitted_at,
                str(WorkloadState.PENDING),
                own_topologies_text(record.own_topologies),
                record.pods,
                adding.spec_bytes,
            ),
        ).fetchall()  # all rows, so the statement is finished before the transaction commits
        stored = workload_from_row(rows[0])
        if event is not None:
            insert_event(db, event, stored.id)
        return stored

    def get_workload(self, workload_id: int) -> WorkloadRecord:
        """One workload by id."""
        with self._tx("reading a workload") as db:
            return read_workload(db, workload_id)

    def list_workloads(
        self, owner: str | None = None, states: Collection[WorkloadState] | None = None
    ) -> list[WorkloadRecord]:
        """Workloads in arrival order, optionally only one owner's and only some states."""
        clause, params = workload_filter(owner, states)
        with self._tx("listing workloads") as db:
            rows = db.execute(
                f"SELECT {WORKLOAD_COLUMNS} FROM workloads WHERE {clause} ORDER BY sequence, id", params
            ).fetchall()
        return [workload_from_row(row) for row in rows]

    def page_workloads(
        self,
        *,
        owner: str | None = None,
        states: Collection[WorkloadState] | None = None,
        after: int = 0,
        limit: int,
    ) -> list[WorkloadRecord]:
        """One page of workloads in id order: ids above ``after``, at most ``limit`` (in SQL)."""
        clause, params = workload_filter(owner, states)
        with self._tx("listing workloads") as db:
            rows = db.execute(
                f"SELECT {WORKLOAD_COLUMNS} FROM workloads WHERE id > ? AND {clause} ORDER BY id LIMIT ?",
                [after, *params, limit],
            ).fetchall()
        return [workload_from_row(row) for row in rows]

    def queue(self, states: Collection[WorkloadState]) -> list[QueueEntry]:
        """Id, priority, sequence and time pending since of the workloads in ``states``, in
        arrival order."""
        marks = ", ".join("?" for _ in states) or "NULL"
        with self._tx("listing the queue") as db:
            rows = db.execute(
                "SELECT id, priority, sequence, COALESCE(pending_since, submitted_at) FROM workloads"
                f" WHERE state IN ({marks}) ORDER BY sequence, id",
                [str(WorkloadState(s)) for s in states],
            ).fetchall()
        return [QueueEntry(r[0], r[1], r[2], r[3]) for r in rows]

    def set_explanation(self, workload_id: int, explanation: Json) -> WorkloadRecord:
        """Record why a workload waits, without changing its state."""
        text = None if explanation is None else dumps(explanation)
        with self._tx("storing an explanation", write=True) as db:
            read_workload(db, workload_id)
            db.execute("UPDATE workloads SET explanation = ? WHERE id = ?", (text, workload_id))
            return read_workload(db, workload_id)
