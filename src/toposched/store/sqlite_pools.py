"""The OSMO pools of ``SqliteStore`` (the ``pools`` table)."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from contextlib import AbstractContextManager

from toposched.model import NotFoundError
from toposched.store import rules
from toposched.store.codecs import dumps, loads
from toposched.store.records import ACTIVE_STATES, PoolRecord


class SqlitePools:
    """The pool methods of the ``Store`` protocol, over ``SqliteStore``'s transactions."""

    _tx: Callable[..., AbstractContextManager[sqlite3.Connection]]

    def put_pool(self, pool: PoolRecord) -> None:
        """Insert or overwrite a pool by name."""
        config = None if pool.config is None else dumps(pool.config)
        with self._tx("storing a pool", write=True) as db:
            db.execute(
                "INSERT OR REPLACE INTO pools (name, topology, config) VALUES (?, ?, ?)",
                (pool.name, pool.topology, config),
            )

    def get_pool(self, name: str) -> PoolRecord:
        """One pool by name."""
        with self._tx("reading a pool") as db:
            row = db.execute("SELECT name, topology, config FROM pools WHERE name = ?", (name,)).fetchone()
            if row is None:
                known = [r[0] for r in db.execute("SELECT name FROM pools")]
                raise NotFoundError("pool", name, f"known pools: {rules.known_names(known)}")
        return PoolRecord(row[0], row[1], loads(row[2], f"pool {name!r} config"))

    def list_pools(self) -> list[PoolRecord]:
        """Every pool, sorted by name."""
        with self._tx("reading pools") as db:
            rows = db.execute("SELECT name, topology, config FROM pools ORDER BY name").fetchall()
        return [PoolRecord(r[0], r[1], loads(r[2], f"pool {r[0]!r} config")) for r in rows]

    def delete_pool(self, name: str) -> None:
        """Delete a pool."""
        live = ", ".join(f"'{state}'" for state in sorted(ACTIVE_STATES))
        with self._tx("deleting a pool", write=True) as db:
            if db.execute("SELECT 1 FROM pools WHERE name = ?", (name,)).fetchone() is None:
                raise NotFoundError("pool", name)
            users = db.execute(
                f"SELECT id FROM workloads WHERE pool = ? AND state IN ({live}) ORDER BY id", (name,)
            ).fetchall()
            rules.check_pool_unused(name, [r[0] for r in users])
            db.execute("DELETE FROM pools WHERE name = ?", (name,))
