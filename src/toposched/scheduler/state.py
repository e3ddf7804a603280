"""The loop's working state shared by the ``Scheduler`` and the cycle steps."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

from toposched.model import Gang, NotFoundError, Topology
from toposched.scheduler.clock import Clock
from toposched.scheduler.intake import Intake
from toposched.scheduler.tracker import Tracker
from toposched.scheduler.types import SchedulerConfig
from toposched.store import EventRecord, Json, Store, WorkloadRecord


@dataclass(slots=True)
class Backoff:
    """Failed admission attempts so far and the time before which the workload is skipped."""

    attempts: int
    not_before: float


@dataclass(slots=True)
class State:
    """Collaborators plus what is kept in memory. Backoff and the last reported reasons are lost
    on restart on purpose: that only makes the next attempt come sooner."""

    store: Store
    clock: Clock
    config: SchedulerConfig
    intake: Intake
    tracker: Tracker = field(default_factory=Tracker)
    backoff: dict[int, Backoff] = field(default_factory=dict)
    reported: dict[int, str] = field(default_factory=dict)
    gangs: dict[tuple[int, str], Gang] = field(default_factory=dict)
    lock: threading.RLock = field(default_factory=threading.RLock)

    def event(self, kind: str, message: str, workload: int | None = None, data: Json = None) -> EventRecord:
        """An event stamped with the clock (the store assigns its ``seq``)."""
        return EventRecord(
            type=str(kind), message=message, time=self.clock.now(), workload=workload, data=data
        )

    def topology_of(self, record: WorkloadRecord) -> Topology:
        """The topology a workload uses: its own, or the only one the store knows."""
        if record.topology:
            return self.store.get_topology(record.topology)
        return self.default_topology()

    def default_topology(self) -> Topology:
        """The store's only topology; NotFoundError when there is none or several."""
        known = self.store.list_topologies()
        if len(known) == 1:
            return known[0]
        names = ", ".join(t.name for t in known) or "none"
        raise NotFoundError(
            "topology", "(default)", f"{len(known)} topologies are defined ({names}); name one in the request"
        )

    def gang_of(self, record: WorkloadRecord, topology: Topology) -> Gang:
        """The workload's stored spec compiled against ``topology`` (cached; specs never change)."""
        key = (record.id, f"{topology.name}\0{'|'.join(topology.levels)}")
        gang = self.gangs.get(key)
        if gang is None:
            hint = record.kind if self.intake.knows(record.kind) else None
            gang = self.intake.load(record.spec, kind=hint, topology=topology)
            self.gangs = {k: v for k, v in self.gangs.items() if k[0] != record.id}
            self.gangs[key] = gang
        return gang

    def forget(self, workload: int) -> None:
        """Drop the in-memory state of a workload that ended."""
        self.backoff.pop(workload, None)
        self.reported.pop(workload, None)
        self.gangs = {k: v for k, v in self.gangs.items() if k[0] != workload}
        self.tracker.clear(workload)
