"""The loop's working state shared by the ``Scheduler`` and the cycle steps."""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from toposched.engine import (
    PlacementSession,
    PolicyRegistry,
    builtin_policies,
    named_topologies,
    open_session,
)
from toposched.frontends.registry import CompileContext, PoolEntry, Registry
from toposched.model import Gang, NotFoundError, Problem, QueueTree, SpecError, Topology
from toposched.scheduler import pools
from toposched.scheduler.aging import Ages
from toposched.scheduler.clock import Clock
from toposched.scheduler.kept import SnapshotCache, TreeCache, topology_key
from toposched.scheduler.known import HoldingIndex, KnownNodes
from toposched.scheduler.preemption import LowerPriority, PreemptionRule
from toposched.scheduler.queue_quotas import GangUsageSums
from toposched.scheduler.reservations import Reservation
from toposched.scheduler.tracker import Tracker
from toposched.scheduler.types import LoopHealth, SchedulerConfig
from toposched.store import EventRecord, Json, PoolRecord, Store, WorkloadRecord


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
    registry: Registry
    policies: PolicyRegistry = field(default_factory=builtin_policies)
    search_clock: Clock | None = None  # bounds searches in time; None: a work clock (``open_session``)
    tracker: Tracker = field(default_factory=Tracker)
    backoff: dict[int, Backoff] = field(default_factory=dict)
    reported: dict[int, str] = field(default_factory=dict)
    health: LoopHealth = field(default_factory=LoopHealth)
    gangs: dict[int, tuple[str, Gang]] = field(default_factory=dict)  # workload -> (topology key, gang)
    # Kept from one cycle to the next, brought up to date from what the store says changed.
    trees: TreeCache = field(default_factory=TreeCache)
    snapshots: SnapshotCache = field(default_factory=SnapshotCache)
    nodes: KnownNodes = field(default_factory=KnownNodes)
    holding: HoldingIndex = field(default_factory=HoldingIndex)
    rule: PreemptionRule = field(default_factory=LowerPriority)  # which gangs a gang may preempt
    ages: Ages = field(default_factory=Ages)  # how long each pending gang has waited (``aging``)
    # The last cycle's reservations and their topologies: each stands while its gang backs off.
    reservations: tuple[tuple[Reservation, Topology], ...] = ()
    queue_tree: QueueTree | None = None  # the queues the last cycle read (``queue_cycle``)
    queue_totals: GangUsageSums = field(default_factory=GangUsageSums)  # what queue usage is summed from
    # The cycle's placement session (its caches outlive a cycle); others get ``new_session``.
    session: PlacementSession = field(init=False)
    cycling: threading.Lock = field(default_factory=threading.Lock)  # one cycle at a time
    lock: threading.RLock = field(default_factory=threading.RLock)
    wake: threading.Event = field(default_factory=threading.Event)  # set when there is work for the loop

    def __post_init__(self) -> None:
        self.session = self.new_session()

    def new_session(self) -> PlacementSession:
        """A placement session with the loop's options, policies and search clock."""
        clock = self.search_clock
        return open_session(
            self.config.options(), policies=self.policies, clock=None if clock is None else clock.now
        )

    def run_seconds_of(self, gang: Gang) -> float:
        """How long ``gang`` is expected to run: what it declares, else its queue's
        ``defaultRunSeconds`` (the queues as the cycle last read them), else the service's
        default."""
        if gang.run_seconds is not None:
            return gang.run_seconds
        if self.queue_tree is not None:
            queued = self.queue_tree.queues[self.queue_tree.queue_of(gang)].default_run_seconds
            if queued is not None:
                return queued
        return self.config.default_run_seconds

    def rank_of(self, record: WorkloadRecord) -> int:
        """The priority a pending workload has reached now (``aging``), at least its own."""
        now, aging = self.clock.now(), self.config.aging_seconds
        return max(record.priority, self.ages.effective(record.id, record.priority, now, aging))

    def event(self, kind: str, message: str, workload: int | None = None, data: Json = None) -> EventRecord:
        """An event stamped with the clock (the store assigns its ``seq``)."""
        return EventRecord(
            type=str(kind), message=message, time=self.clock.now(), workload=workload, data=data
        )

    def topology_of(self, record: WorkloadRecord) -> Topology:
        """The topology a workload uses: the one it names, or the only shared one."""
        if record.topology:
            return self.topology_named(record, record.topology)
        return self.default_topology()

    def topology_named(self, record: WorkloadRecord, name: str) -> Topology:
        """A topology by name as ``record`` sees it: one its spec brought, else a stored one."""
        own = next((t for t in record.own_topologies if t.name == name), None)
        return own if own is not None else self.store.get_topology(name)

    def shared_topologies(self) -> list[Topology]:
        """Topologies a workload may use without naming one (see ``shared_of``)."""
        return shared_of(self.store.list_pools(), self.store.list_topologies())

    def default_topology(self) -> Topology:
        """The only shared topology; NotFoundError when there is none or several."""
        return default_of(self.shared_topologies())

    def topologies_named(self, gang: Gang, record: WorkloadRecord) -> list[Topology]:
        """Every topology the gang's groups name, as ``record`` sees them (``topology_named``;
        NotFoundError for one that is gone)."""
        return [self.topology_named(record, name) for name in named_topologies(gang)]

    def context(
        self,
        pool_records: Sequence[PoolRecord] | None = None,
        own: Sequence[Topology] = (),
        *,
        pool: str = "",
    ) -> CompileContext:
        """What front ends may read: the stored topologies and OSMO pools (``pool_records`` when
        the caller read them already), and the pod limit. ``own``: a workload's own topologies,
        which come before stored ones of the same name. ``pool``: the one pool a workflow runs in
        (chosen at submission; kept so a stored workflow compiles again whatever pools are added)."""
        if pool_records is None:
            pool_records = self.store.list_pools()
        if pool:
            pool_records = [r for r in pool_records if r.name == pool]
        entries = {r.name: PoolEntry(pools.stored_pool(r), r.topology or None) for r in pool_records}
        return CompileContext(topologies=self.known_to(own), pools=entries, max_pods=self.config.max_pods)

    def known_to(self, own: Sequence[Topology]) -> tuple[Topology, ...]:
        """The topologies a workload sees: its ``own`` first, then the stored ones of other names."""
        names = {t.name for t in own}
        return (*own, *(t for t in self.store.list_topologies() if t.name not in names))

    def gang_of(self, record: WorkloadRecord, topology: Topology) -> Gang:
        """The workload's stored spec compiled against ``topology`` (cached; specs never change)."""
        key = topology_key(topology)
        cached = self.gangs.get(record.id)
        if cached is not None and cached[0] == key:
            return cached[1]
        frontend, documents = read_spec(record)
        context = replace(self.context(own=record.own_topologies, pool=record.pool), topology=topology)
        gang = self.registry.compile(documents, context, hint=frontend).gang
        self.remember(record.id, topology, gang)
        return gang

    def remember(self, workload: int, topology: Topology, gang: Gang) -> None:
        """Cache a compiled gang (single dict writes: safe without the lock)."""
        self.gangs[workload] = (topology_key(topology), gang)

    def forget(self, workload: int) -> None:
        """Drop the in-memory state of a workload that ended."""
        self.backoff.pop(workload, None)
        self.reported.pop(workload, None)
        self.health.broken.pop(workload, None)
        self.gangs.pop(workload, None)
        self.tracker.clear(workload)
        self.session.forget(workload)

    def prune(self, live: Sequence[int]) -> None:
        """Forget the workloads that ended (cancelled or finished by a request, which does not
        take the lock). ``live`` lists every pending or capacity-holding id read by this cycle;
        ids above its largest were submitted after that read and are kept."""
        if not live:
            return
        keep, newest = set(live), max(live)
        memory = (self.backoff, self.reported, self.health.broken, self.gangs, self.tracker.pods)
        ended = {
            w for table in memory for w in list(table) if w <= newest and w not in keep
        }  # list: submit may add
        for workload in ended:
            self.forget(workload)

    def notify(self) -> None:
        """Wake the loop: something it may act on changed (submission, release, node, topology)."""
        self.wake.set()


def stored_spec(frontend: str, documents: Sequence[Any]) -> str:
    """What a workload record keeps of its spec: the parsed documents and the front end that
    read them, as JSON (the scheduler parses no YAML)."""
    return json.dumps({"frontend": frontend, "documents": list(documents)}, separators=(",", ":"))


def read_spec(record: WorkloadRecord) -> tuple[str | None, list[Any]]:
    """The front end and documents of ``stored_spec``; a spec that is not that JSON (written by
    an older toposched, or damaged) is a ``SpecError`` that marks the workload."""
    try:
        stored = json.loads(record.spec)
        return stored.get("frontend"), list(stored["documents"])
    except (ValueError, TypeError, KeyError, AttributeError):
        raise SpecError(
            [
                Problem(
                    f"workloads[{record.id}].spec",
                    "is not the JSON this toposched stores",
                    "cancel the workload and submit its spec again",
                )
            ]
        ) from None


def shared_of(pool_records: Sequence[PoolRecord], topologies: Sequence[Topology]) -> list[Topology]:
    """Topologies a workload may use without naming one: all but the pool topologies the service
    made for OSMO pools (``osmo-pool-<namespace>-<pool>-topology``), which only that pool's
    workflows use."""
    pool_owned = {r.topology for r in pool_records if r.topology.startswith("osmo-pool-")}
    return [t for t in topologies if t.name not in pool_owned]


def default_of(shared: Sequence[Topology]) -> Topology:
    """The only one of ``shared``; NotFoundError when there is none or several."""
    if len(shared) == 1:
        return shared[0]
    names = ", ".join(t.name for t in shared) or "none"
    raise NotFoundError(
        "topology", "(default)", f"{len(shared)} topologies are defined ({names}); name one in the request"
    )
