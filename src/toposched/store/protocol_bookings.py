"""The part of the ``Store`` protocol that books capacity: admissions, reassignments and the state
changes that free what a workload holds. Reservations (per admitted workload and node) are the
source of truth for booked capacity."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

from toposched.model import ConflictError, Resources
from toposched.store.records import Decision, EventRecord, Json, WorkloadRecord, WorkloadState


class BookingStore(Protocol):
    """Capacity booked per workload and node, never beyond a node's allocatable."""

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
