"""The ``Store`` protocol: the scheduler's durable state in domain terms.

Every method that changes state is one transaction: it happens completely or not at all. Reservations
(per admitted workload and node) are the source of truth for booked capacity; ``admit`` refuses any
booking that would exceed a node's allocatable, so capacity is never booked twice, even when two
schedulers race or a request is replayed.

``Store`` is the whole; its parts, one per concern, are ``protocol_nodes``, ``protocol_admin``
(pools, tokens, quotas), ``protocol_workloads`` (workloads and events) and ``protocol_bookings``.
"""

from __future__ import annotations

from typing import Protocol

from toposched.store.protocol_admin import PoolStore, QueueStore, QuotaStore, TokenStore
from toposched.store.protocol_bookings import BookingStore
from toposched.store.protocol_nodes import NodeStore
from toposched.store.protocol_workloads import EventStore, WorkloadStore
from toposched.store.records import BookingChanges, NodeChanges


class Store(
    NodeStore,
    PoolStore,
    TokenStore,
    QuotaStore,
    QueueStore,
    WorkloadStore,
    BookingStore,
    EventStore,
    Protocol,
):
    """Durable scheduler state. Missing objects raise ``NotFoundError``, broken lifecycle rules
    ``ConflictError``, storage failures ``StoreError`` (with nothing written)."""

    def version(self) -> int:
        """A number that moves on whenever what is stored may have changed (also by another
        process): what was read while it stays the same is still current. Only equality with
        an earlier value means anything."""
        ...

    def node_changes(self, since: int | None = None) -> NodeChanges:
        """The nodes written or deleted after generation ``since`` (the ``generation`` of an
        earlier answer of this store), read at one point in time. With ``since`` None, or one
        the store can no longer answer for (too old, or newer than the store: not its own),
        every node is returned and ``full`` is set. The loop reads this each cycle instead of
        every node."""
        ...

    def booking_changes(self, since: int | None = None) -> BookingChanges:
        """The workloads whose bookings (reservations, placement, or holding capacity at all)
        changed after generation ``since``, read at one point in time: the ones holding capacity
        now with their reservations, and the others with their state. With ``since`` None (or
        one the store cannot answer for), every workload holding capacity, with ``full`` set."""
        ...

    def close(self) -> None: ...
