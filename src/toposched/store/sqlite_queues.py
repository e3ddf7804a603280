"""The scheduling queues of ``SqliteStore`` (the ``queues`` table: each queue's spec as JSON).
Each write is checked against the stored queues as a tree (``QueueTree``) in its transaction,
so two writers cannot together break it."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from contextlib import AbstractContextManager

from toposched.model import NotFoundError, QueueTree, SchedulingQueue, SpecError, StoreError
from toposched.store import rules
from toposched.store.codecs import dumps, loads


class SqliteQueues:
    """The queue methods of the ``Store`` protocol, over ``SqliteStore``'s transactions."""

    _tx: Callable[..., AbstractContextManager[sqlite3.Connection]]

    def put_queue(self, queue: SchedulingQueue) -> None:
        """Insert or replace a queue by name; SpecError (nothing written) when the queues would
        no longer form a tree (unknown parent, a cycle, a LocalQueue listed twice)."""
        with self._tx("storing a queue", write=True) as db:
            QueueTree.of(_read_all(db)).with_queue(queue)
            db.execute(
                "INSERT OR REPLACE INTO queues (name, data) VALUES (?, ?)",
                (queue.name, dumps(queue.to_json())),
            )

    def get_queue(self, name: str) -> SchedulingQueue:
        """One stored queue by name."""
        with self._tx("reading a queue") as db:
            row = db.execute("SELECT data FROM queues WHERE name = ?", (name,)).fetchone()
            if row is None:
                known = [r[0] for r in db.execute("SELECT name FROM queues ORDER BY name LIMIT 20")]
                raise NotFoundError("queue", name, f"known queues: {rules.known_names(known)}")
        return _decoded(name, row[0])

    def list_queues(self) -> list[SchedulingQueue]:
        """Every stored queue, sorted by name."""
        with self._tx("reading queues") as db:
            return _read_all(db)

    def delete_queue(self, name: str) -> None:
        """Delete a queue; SpecError while another queue names it as its parent."""
        with self._tx("deleting a queue", write=True) as db:
            queues = _read_all(db)
            if all(q.name != name for q in queues):
                raise NotFoundError("queue", name)
            QueueTree.of(queues).without(name)
            db.execute("DELETE FROM queues WHERE name = ?", (name,))


def _read_all(db: sqlite3.Connection) -> list[SchedulingQueue]:
    rows = db.execute("SELECT name, data FROM queues ORDER BY name").fetchall()
    return [_decoded(name, data) for name, data in rows]


def _decoded(name: str, data: str) -> SchedulingQueue:
    what = f"queue {name!r}"
    try:
        return SchedulingQueue.parse(loads(data, what), what)
    except SpecError as exc:
        raise StoreError(f"stored {what} is damaged: {exc}") from exc
