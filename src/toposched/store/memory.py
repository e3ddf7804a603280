"""``MemoryStore``: the ``Store`` protocol in memory, for tests and dry runs. Its state is set
here; each concern's methods are a mixin of their own (``memory_nodes``, ``memory_workloads``,
``memory_bookings``, ``memory_lifecycle``, ``memory_events``, ``memory_quotas``, ``memory_pools``,
``memory_tokens``, ``memory_changes``), the shared helpers in ``memory_records``.

Same rules as the SQLite store (shared through ``toposched.store.rules``); every operation checks
before it changes anything, under one lock, so a refused call leaves no trace. Workload placements
and explanations are kept frozen (``toposched.store.frozen``), so reads hand out the stored records
without copying; workload ids are indexed by state, so listing some states never scans the
finished ones.

``MemoryStore(history=False)`` keeps only what a running scheduler reads: a workload that ends
(finished or cancelled) is forgotten, and events are numbered but not kept. For a caller whose
record lives elsewhere (the controller's is the cluster), so its memory does not grow with every
workload it ever ran.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

from toposched.model import Node, Quota, Resources, SchedulingQueue, Topology
from toposched.store.memory_bookings import MemoryBookings
from toposched.store.memory_changes import ChangeLog, MemoryChanges
from toposched.store.memory_events import MemoryEvents
from toposched.store.memory_lifecycle import MemoryLifecycle
from toposched.store.memory_nodes import MemoryNodes
from toposched.store.memory_pools import MemoryPools
from toposched.store.memory_queues import MemoryQueues
from toposched.store.memory_quotas import MemoryQuotas
from toposched.store.memory_tokens import MemoryTokens
from toposched.store.memory_workloads import MemoryWorkloads
from toposched.store.records import EventRecord, PoolRecord, TokenRecord, WorkloadRecord, WorkloadState


class MemoryStore(
    MemoryNodes,
    MemoryWorkloads,
    MemoryBookings,
    MemoryLifecycle,
    MemoryEvents,
    MemoryQuotas,
    MemoryQueues,
    MemoryPools,
    MemoryTokens,
    MemoryChanges,
):
    """Volatile state; everything is lost when the object goes away."""

    def __init__(self, *, history: bool = True) -> None:
        self._history = history
        self._lock = threading.RLock()
        self._nodes: dict[str, Node] = {}
        self._topologies: dict[str, Topology] = {}
        self._pools: dict[str, PoolRecord] = {}
        self._quotas: dict[str, Quota] = {}
        self._scheduling_queues: dict[str, SchedulingQueue] = {}
        self._tokens: dict[str, TokenRecord] = {}
        self._workloads: dict[int, WorkloadRecord] = {}
        self._pending_since: dict[int, float] = {}
        self._by_state: dict[WorkloadState, set[int]] = {state: set() for state in WorkloadState}
        # While ``write_decisions`` runs: each workload's record before the run, to roll back.
        self._before: dict[int, WorkloadRecord | None] | None = None
        self._reservations: dict[int, dict[str, Resources]] = {}
        # Reservations summed per node, kept in step with ``_reservations``: a capacity check
        # reads only the nodes it books, never every reservation.
        self._booked: dict[str, Resources] = {}
        self._events: list[EventRecord] = []
        self._last_seq = 0  # of the newest event, kept or not
        self._next_id = 1
        self._next_sequence = 1
        self._version = 0  # moves on with every call that may change what is stored
        # Which nodes, and which workloads' bookings, changed since a generation.
        self._node_log: ChangeLog[str] = ChangeLog()
        self._booking_log: ChangeLog[int] = ChangeLog()

    def version(self) -> int:
        """A number that moves on whenever what is stored may have changed."""
        return self._version

    @contextmanager
    def _changing(self) -> Iterator[None]:
        """The lock, for a call that may change what is stored (``version`` moves on)."""
        with self._lock:
            self._version += 1
            yield

    def close(self) -> None:
        """Nothing to release."""
