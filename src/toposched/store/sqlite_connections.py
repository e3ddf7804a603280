"""The SQLite connections behind ``SqliteStore``: one write connection under a lock, one read
connection per thread, and the transaction helper every store call goes through. A new database
file (and so its -wal and -shm files) is created readable by its owner only.

Writes take the write lock up front (``BEGIN IMMEDIATE``), so what they read stays true until
commit; reads run on the thread's own connection, in a WAL snapshot of the last commit, so a read
never queues behind a writer's fsync. Other processes wait for the write lock up to
``busy_timeout`` seconds.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from toposched.model import StoreError
from toposched.store.migrations import migrate


class Connections:
    """Opens (WAL, synchronous=FULL, foreign keys), migrates, and hands out transactions."""

    def __init__(self, path: str | os.PathLike[str], *, busy_timeout: float = 10.0) -> None:
        self.path = Path(path)
        self._lock = threading.RLock()
        self._busy_timeout = busy_timeout
        self._local = threading.local()  # .reader: this thread's _Reader
        self._readers: weakref.WeakSet[_Reader] = weakref.WeakSet()  # open ones, closed by ``close``
        self._closed = False
        _create_private(self.path)
        self._conn = self._connect()
        try:
            mode = self._conn.execute("PRAGMA journal_mode = WAL").fetchone()
            if mode is None or str(mode[0]).lower() != "wal":
                raise StoreError(f"the store {str(self.path)!r} cannot use WAL journaling (got {mode!r})")
            self._conn.execute("PRAGMA synchronous = FULL")
            self.migrated_from = migrate(self._conn)
            # Asked only for PRAGMA data_version, which moves on with every commit by any other
            # connection: this store's writer and other processes alike.
            self._watch = self._connect()
        except sqlite3.Error as exc:
            self._conn.close()
            raise StoreError(f"cannot open the store {str(self.path)!r}: {exc}") from exc
        except BaseException:
            self._conn.close()
            raise
        self._watch_lock = threading.Lock()

    def _connect(self) -> sqlite3.Connection:
        try:
            # Autocommit mode: transactions are opened explicitly, so they are exactly ours.
            conn = sqlite3.connect(
                self.path, timeout=self._busy_timeout, isolation_level=None, check_same_thread=False
            )
            conn.execute("PRAGMA foreign_keys = ON")
            conn.execute(f"PRAGMA busy_timeout = {int(self._busy_timeout * 1000)}")
        except sqlite3.Error as exc:
            raise StoreError(f"cannot open the store {str(self.path)!r}: {exc}") from exc
        return conn

    def close(self) -> None:
        """Close every connection, the writer last, after checkpointing the WAL into the database
        file and truncating it: SQLite checkpoints by itself only when the last connection to the
        file closes, and a reader a thread still holds would make that not happen. Later
        transactions raise StoreError."""
        with self._lock:
            self._closed = True
            with self._watch_lock:
                self._watch.close()
            for reader in list(self._readers):
                reader.conn.close()
            with contextlib.suppress(sqlite3.Error):  # the close below still checkpoints if it can
                self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            self._conn.close()

    def data_version(self) -> int:
        """SQLite's data_version as seen by a connection that never writes: it differs from
        an earlier value exactly when someone committed since (see ``SqliteStore.version``)."""
        with self._watch_lock:
            try:
                row = self._watch.execute("PRAGMA data_version").fetchone()
            except sqlite3.Error as exc:
                raise StoreError(f"reading the store {str(self.path)!r} failed: {exc}") from exc
        return int(row[0])

    def _reader(self) -> sqlite3.Connection:
        """This thread's read connection (opened on first use; no lock: only this thread uses it).
        It closes when the thread ends, so short-lived pool threads leave no connections behind."""
        reader: _Reader | None = getattr(self._local, "reader", None)
        if reader is None:
            with self._lock:
                if self._closed:  # reported by ``tx`` like any SQLite failure
                    raise sqlite3.ProgrammingError("Cannot operate on a closed database.")
                reader = _Reader(self._connect())
                self._readers.add(reader)
            self._local.reader = reader
        return reader.conn

    @contextmanager
    def tx(self, action: str, *, write: bool = False) -> Iterator[sqlite3.Connection]:
        """One transaction: committed when the block ends, rolled back on any exception."""
        lock = self._lock if write else contextlib.nullcontext()
        with lock:
            try:
                conn = self._conn if write else self._reader()
                conn.execute("BEGIN IMMEDIATE" if write else "BEGIN")
                try:
                    yield conn
                    conn.execute("COMMIT")
                except BaseException:
                    if conn.in_transaction:
                        conn.execute("ROLLBACK")
                    raise
            except sqlite3.Error as exc:
                raise StoreError(
                    f"{action} failed in the store {str(self.path)!r}: {exc}; nothing was changed"
                ) from exc


def _create_private(path: Path) -> None:
    """Create a missing database file readable by its owner only, before SQLite opens it:
    SQLite gives the -wal and -shm files it creates the database file's permissions."""
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    except FileExistsError:
        pass
    except OSError as exc:
        raise StoreError(f"cannot create the store {str(path)!r}: {exc.strerror}") from exc


class _Reader:
    """A thread's read connection; closed when the thread's locals are dropped (thread exit)."""

    __slots__ = ("__weakref__", "conn")

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def __del__(self) -> None:
        self.conn.close()
