"""The ``Store`` protocol: the scheduler's durable state in domain terms.

Every method that changes state is one transaction: it happens completely or not at all. Reservations
(per admitted workload and node) are the source of truth for booked capacity; ``admit`` refuses any
booking that would exceed a node's allocatable, so capacity is never booked twice, even when two
schedulers race or a request is replayed.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import Protocol

from toposched.model import ConflictError, Node, Quota, Resources, SchedulingQueue, Taint, Topology, Usage
from toposched.store.records import (
    BookingChanges,
    Decision,
    EventRecord,
    Json,
    NodeChanges,
    PoolRecord,
    QueueEntry,
    TokenRecord,
    WorkloadRecord,
    WorkloadState,
)


class Store(Protocol):
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

    # -- nodes ---------------------------------------------------------------------------------
    def put_nodes(self, nodes: Iterable[Node], *, replace: bool = False) -> None:
        """Insert or overwrite nodes by name; with ``replace`` also delete every node not listed."""
        ...

    def get_nodes(self) -> list[Node]:
        """Every node, sorted by name."""
        ...

    def get_node(self, name: str) -> Node: ...

    def update_node(
        self,
        name: str,
        *,
        ready: bool | None = None,
        unschedulable: bool | None = None,
        taints: tuple[Taint, ...] | None = None,
        labels: Mapping[str, str] | None = None,
        allocatable: Resources | None = None,
    ) -> Node:
        """Change the given fields of one node; returns the stored node."""
        ...

    def delete_node(self, name: str) -> None:
        """Forget a node. Its reservations stay with their workloads until released."""
        ...

    # -- topologies ----------------------------------------------------------------------------
    def put_topology(self, topology: Topology) -> None: ...

    def get_topology(self, name: str) -> Topology: ...

    def list_topologies(self) -> list[Topology]:
        """Every topology, sorted by name."""
        ...

    def delete_topology(self, name: str) -> None:
        """Delete a topology; ConflictError while a live workload or a pool references it."""
        ...

    # -- OSMO pools ----------------------------------------------------------------------------
    def put_pool(self, pool: PoolRecord) -> None: ...

    def get_pool(self, name: str) -> PoolRecord: ...

    def list_pools(self) -> list[PoolRecord]: ...

    def delete_pool(self, name: str) -> None:
        """Delete a pool; ConflictError while a pending, admitted or running workload uses it."""
        ...

    # -- API tokens ----------------------------------------------------------------------------
    def add_token(self, token: TokenRecord) -> None:
        """Store a new token; ConflictError when its name or its digest is already stored."""
        ...

    def list_tokens(self) -> list[TokenRecord]:
        """Every stored token, sorted by name."""
        ...

    def delete_token(self, name: str) -> TokenRecord:
        """Delete a token by name and return it; NotFoundError when there is none."""
        ...

    # -- per-user quotas -----------------------------------------------------------------------
    def put_quota(self, user: str, quota: Quota) -> None:
        """Give ``user`` a quota of their own, in place of the default ``submit_workload`` gets."""
        ...

    def delete_quota(self, user: str) -> None:
        """Drop ``user``'s own quota; NotFoundError when they have none."""
        ...

    def list_quotas(self) -> dict[str, Quota]:
        """Every user's own quota, by user name."""
        ...

    def pending_usage(self, owner: str) -> Usage:
        """``owner``'s pending work: workloads, their pods and the bytes of their stored specs."""
        ...

    # -- scheduling queues ---------------------------------------------------------------------
    def put_queue(self, queue: SchedulingQueue) -> None:
        """Insert or replace a queue by name; SpecError (nothing written) when the stored queues
        would no longer form a tree (``QueueTree``)."""
        ...

    def get_queue(self, name: str) -> SchedulingQueue:
        """One stored queue; NotFoundError when there is none of that name."""
        ...

    def list_queues(self) -> list[SchedulingQueue]:
        """Every stored queue, sorted by name (``default`` only when it was configured)."""
        ...

    def delete_queue(self, name: str) -> None:
        """Delete a queue; NotFoundError when none, SpecError while another names it as parent."""
        ...

    # -- workloads -----------------------------------------------------------------------------
    def submit_workload(
        self, record: WorkloadRecord, event: EventRecord | None = None, quota: Quota | None = None
    ) -> WorkloadRecord:
        """Store a new pending workload; assigns ``id`` and arrival ``sequence`` atomically.
        The record's own id, sequence, state, placement and explanation are ignored. ``event``,
        when given, is logged for the new workload in the same transaction. ``quota``: the most
        pending work its owner may have with it counted (their own quota, ``put_quota``, takes its
        place); QuotaExceededError, nothing written, when it would be passed. None and no quota
        of their own: no bound."""
        ...

    def get_workload(self, workload_id: int) -> WorkloadRecord: ...

    def list_workloads(
        self, owner: str | None = None, states: Collection[WorkloadState] | None = None
    ) -> list[WorkloadRecord]:
        """Workloads in arrival order, optionally only one owner's and only some states."""
        ...

    def page_workloads(
        self,
        *,
        owner: str | None = None,
        states: Collection[WorkloadState] | None = None,
        after: int = 0,
        limit: int,
    ) -> list[WorkloadRecord]:
        """One page of workloads in id (submission) order: ids above ``after``, at most
        ``limit``, optionally only one owner's and only some states. The last id is the cursor
        of the next page."""
        ...

    def queue(self, states: Collection[WorkloadState]) -> list[QueueEntry]:
        """Id, priority and sequence of the workloads in ``states``, in arrival order."""
        ...

    def set_explanation(self, workload_id: int, explanation: Json) -> WorkloadRecord:
        """Record why a workload waits (or how it was placed), without changing its state."""
        ...

    def write_decisions(self, decisions: Sequence[Decision]) -> dict[int, ConflictError]:
        """Write a run of the loop's decisions in order, in one transaction: each ``Admission`` as
        ``admit`` books it, checked against everything booked before it (the run's earlier
        admissions included), and each ``Note`` as an explanation (and its event) of a workload
        still pending; notes of the others are skipped. An admission the rules refuse is left out
        and returned with its ConflictError, by workload; all the rest is written."""
        ...

    def admit(
        self,
        workload_id: int,
        placement: Json,
        reservations: Mapping[str, Resources],
        event: EventRecord,
    ) -> WorkloadRecord:
        """Pending -> admitted with its placement, its reservations per node and an event, in one
        transaction; the explanation is cleared. ConflictError (nothing written) when the workload is not pending or when any
        node's reservations would exceed its allocatable."""
        ...

    def reassign(
        self,
        workload_id: int,
        placement: Json,
        reservations: Mapping[str, Resources],
        event: EventRecord,
    ) -> WorkloadRecord:
        """Swap an admitted or running workload's placement and reservations in one transaction,
        keeping its state and arrival order, and log ``event``. The capacity check leaves out the
        workload's own old reservations. ConflictError (nothing written) when the workload holds
        no capacity or a node would be over-committed."""
        ...

    def start(self, workload_id: int, event: EventRecord) -> WorkloadRecord:
        """Admitted -> running (its pods are bound); idempotent."""
        ...

    def release(self, workload_id: int, new_state: WorkloadState, event: EventRecord) -> WorkloadRecord:
        """End a workload as finished or cancelled: delete its reservations, set the state, log the
        event. Idempotent: releasing again into the same state changes nothing and logs nothing."""
        ...

    def evict(self, workload_id: int, event: EventRecord, explanation: Json = None) -> WorkloadRecord:
        """Admitted/running -> evicted: free its reservations and placement; idempotent."""
        ...

    def requeue(self, workload_id: int, event: EventRecord, *, to_back: bool = False) -> WorkloadRecord:
        """Evicted/admitted/running -> pending, freeing any reservations; idempotent. ``to_back``
        gives it a new arrival sequence (the end of its priority band) instead of its original one."""
        ...

    def reservations(self, workload_id: int) -> dict[str, Resources]:
        """What one workload has booked, per node."""
        ...

    def reservations_by_workload(self) -> dict[int, dict[str, Resources]]:
        """Every workload's reservations per node, in one read (workloads holding none are absent)."""
        ...

    def reserved_by_node(self) -> dict[str, Resources]:
        """Booked capacity per node, summed over every workload holding capacity."""
        ...

    # -- events --------------------------------------------------------------------------------
    def append_event(self, event: EventRecord) -> EventRecord:
        """Append one event; returns it with its assigned ``seq``."""
        ...

    def list_events(
        self,
        since: int = 0,
        workload: int | None = None,
        limit: int | None = None,
        *,
        owner: str | None = None,
    ) -> list[EventRecord]:
        """Events with ``seq > since`` in order, optionally for one workload or only for the
        workloads of ``owner``, at most ``limit``."""
        ...

    def close(self) -> None: ...
