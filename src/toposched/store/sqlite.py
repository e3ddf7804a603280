"""``SqliteStore``: the default ``Store``, one SQLite file in WAL mode.

Durability: ``synchronous=FULL``, so a call that returned has reached the disk and survives a crash
or power loss; every state change is one ``BEGIN IMMEDIATE`` transaction, so a crash leaves either
all of it or none of it. Capacity checks run inside the admitting transaction, which holds the
write lock from its first read, so two writers (threads or processes) can never both book the same
capacity.

Threads: one connection for writes, under a lock (SQLite admits one writer at a time anyway, and
the lock keeps a thread pool from interleaving statements of two transactions on one connection),
and one read connection per thread (``sqlite_connections``): in WAL mode readers see the last
commit without waiting for a writer's fsync, so a request's read never queues behind the loop's.

The connections are opened here; each concern's methods are a mixin of their own
(``sqlite_nodes``, ``sqlite_workloads``, ``sqlite_bookings``, ``sqlite_lifecycle``,
``sqlite_events``, ``sqlite_quotas``, ``sqlite_pools``, ``sqlite_tokens``, ``sqlite_changes``),
the group commit in ``sqlite_writes`` and the row helpers in ``sqlite_rows``.
"""

from __future__ import annotations

import os
from types import TracebackType

from toposched.store.batching import GroupCommit
from toposched.store.sqlite_bookings import SqliteBookings
from toposched.store.sqlite_changes import SqliteChanges
from toposched.store.sqlite_connections import Connections
from toposched.store.sqlite_events import SqliteEvents
from toposched.store.sqlite_lifecycle import SqliteLifecycle
from toposched.store.sqlite_nodes import SqliteNodes
from toposched.store.sqlite_pools import SqlitePools
from toposched.store.sqlite_queues import SqliteQueues
from toposched.store.sqlite_quotas import SqliteQuotas
from toposched.store.sqlite_rows import NodeReader
from toposched.store.sqlite_tokens import SqliteTokens
from toposched.store.sqlite_workloads import SqliteWorkloads
from toposched.store.sqlite_writes import Write


class SqliteStore(
    SqliteNodes,
    SqliteWorkloads,
    SqliteBookings,
    SqliteLifecycle,
    SqliteEvents,
    SqliteQuotas,
    SqliteQueues,
    SqlitePools,
    SqliteTokens,
    SqliteChanges,
):
    """The scheduler's state in one SQLite file (created and migrated on open)."""

    def __init__(self, path: str | os.PathLike[str], *, busy_timeout: float = 10.0) -> None:
        self._db = Connections(path, busy_timeout=busy_timeout)
        self.path = self._db.path
        self.migrated_from = self._db.migrated_from
        self._tx = self._db.tx
        # Request-path writes (submissions, releases) that arrive while another commits are
        # stored together by the next commit: one transaction and one fsync for the whole run.
        self._writes: GroupCommit[Write, object] = GroupCommit(self._write_batch)
        # Decoded nodes by their stored JSON text: nodes are immutable values and decoding (with
        # label validation) is the costly part of reading them every cycle.
        self._nodes = NodeReader()

    def __enter__(self) -> SqliteStore:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def close(self) -> None:
        """Close the connections; later calls raise StoreError."""
        self._db.close()

    def version(self) -> int:
        """A number that moves on with every commit, by this store or another process."""
        return self._db.data_version()
