"""Durable scheduler state: the ``Store`` protocol, the SQLite store (default) and an in-memory one."""

from typing import TYPE_CHECKING

from toposched.store.memory import MemoryStore
from toposched.store.migrations import LATEST as SCHEMA_VERSION
from toposched.store.protocol import Store
from toposched.store.records import (
    ACTIVE_STATES,
    Admission,
    BookingChanges,
    Decision,
    EventRecord,
    Json,
    NodeChanges,
    Note,
    PoolRecord,
    QueueEntry,
    TokenRecord,
    WorkloadRecord,
    WorkloadState,
)
from toposched.store.sqlite import SqliteStore

__all__ = [
    "Store",
    "SqliteStore",
    "MemoryStore",
    "SCHEMA_VERSION",
    "WorkloadRecord",
    "WorkloadState",
    "ACTIVE_STATES",
    "EventRecord",
    "Admission",
    "Note",
    "Decision",
    "PoolRecord",
    "QueueEntry",
    "TokenRecord",
    "Json",
    "NodeChanges",
    "BookingChanges",
]

if TYPE_CHECKING:
    # Static proof that both implementations satisfy the protocol (mypy checks these returns).
    def _sqlite_is_a_store(store: SqliteStore) -> Store:
        return store

    def _memory_is_a_store(store: MemoryStore) -> Store:
        return store
