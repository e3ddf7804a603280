"""The parts of the ``Store`` protocol that hold workloads: their records, the queue, and the
event log."""

from __future__ import annotations

from collections.abc import Collection
from typing import Protocol

from toposched.model import Quota
from toposched.store.records import EventRecord, Json, QueueEntry, WorkloadRecord, WorkloadState


class WorkloadStore(Protocol):
    """Workloads: submitted, read, queued and explained."""

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


class EventStore(Protocol):
    """The event log."""

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
