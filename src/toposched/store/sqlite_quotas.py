"""The per-user quotas of ``SqliteStore`` (the ``quotas`` table); checking one is part of
storing a workload (``SqliteStore.submit_workload``)."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from contextlib import AbstractContextManager

from toposched.model import NotFoundError, Quota, Usage
from toposched.store.codecs import dumps, loads, quota_from_json, quota_to_json
from toposched.store.sqlite_rows import pending_usage


class SqliteQuotas:
    """The quota methods of the ``Store`` protocol, over ``SqliteStore``'s transactions."""

    _tx: Callable[..., AbstractContextManager[sqlite3.Connection]]

    def put_quota(self, user: str, quota: Quota) -> None:
        """Give ``user`` a quota of their own (replacing the one they had)."""
        with self._tx("storing a quota", write=True) as db:
            db.execute(
                "INSERT OR REPLACE INTO quotas (name, data) VALUES (?, ?)",
                (user, dumps(quota_to_json(quota))),
            )

    def delete_quota(self, user: str) -> None:
        """Drop ``user``'s own quota (the default applies again); NotFoundError when none."""
        with self._tx("deleting a quota", write=True) as db:
            if db.execute("DELETE FROM quotas WHERE name = ?", (user,)).rowcount == 0:
                raise NotFoundError("quota", user, "the user has no quota of their own")

    def list_quotas(self) -> dict[str, Quota]:
        """Every user's own quota, by user name."""
        with self._tx("reading quotas") as db:
            rows = db.execute("SELECT name, data FROM quotas ORDER BY name").fetchall()
        return {
            name: quota_from_json(loads(data, f"quota of {name!r}"), f"quota of {name!r}")
            for name, data in rows
        }

    def pending_usage(self, owner: str) -> Usage:
        """``owner``'s pending work: workloads, their pods and the bytes of their specs."""
        with self._tx("reading pending work") as db:
            return pending_usage(db, owner)
