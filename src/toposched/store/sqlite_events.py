"""The event log of ``SqliteStore`` (the ``events`` table)."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any

from toposched.store.records import EventRecord
from toposched.store.sqlite_rows import insert_event, read_events, read_workload


class SqliteEvents:
    """The event methods of the ``Store`` protocol, over ``SqliteStore``'s transactions."""

    _tx: Callable[..., AbstractContextManager[sqlite3.Connection]]

    def append_event(self, event: EventRecord) -> EventRecord:
        """Append one event; returns it with its assigned ``seq``."""
        with self._tx("appending an event", write=True) as db:
            if event.workload is not None:
                read_workload(db, event.workload)
            seq = insert_event(db, event, event.workload)
            return read_events(db, "seq = ?", [seq])[0]

    def list_events(
        self,
        since: int = 0,
        workload: int | None = None,
        limit: int | None = None,
        *,
        owner: str | None = None,
    ) -> list[EventRecord]:
        """Events with ``seq > since`` in order, optionally for one workload or only for the
        workloads of ``owner`` (filtered in SQL), at most ``limit``."""
        where = "seq > ?"
        params: list[Any] = [since]
        if workload is not None:
            where, params = where + " AND workload = ?", [*params, workload]
        if owner is not None:
            where += " AND workload IN (SELECT id FROM workloads WHERE owner = ?)"
            params = [*params, owner]
        with self._tx("reading events") as db:
            return read_events(db, where, params, limit)
