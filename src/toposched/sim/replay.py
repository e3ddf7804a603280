"""The event-driven replay: trace jobs through the real ``Scheduler`` on a virtual clock.

The scheduler is the service's own, over the in-memory store, with a ``ManualClock`` the replay
moves from event to event (nothing sleeps). Events at one virtual time are handled together,
then one cycle runs:

1. jobs whose run ends now are finished (``Scheduler.finish``), freeing their GPUs;
2. injected node failures and recoveries are applied (``Scheduler.set_node_ready``);
3. jobs arriving now are submitted as Kueue Job documents (``Scheduler.submit``);
4. ``Scheduler.cycle`` heals and admits (skipped when only GPUs were freed and no job waits:
   such a cycle has nothing to do); its report drives the replay's own book keeping:
   an admitted job ends ``duration`` seconds later, an evicted one starts over when admitted
   again (its pending end is dropped), a replaced one keeps running on its new nodes.

A failed node is seen by the scheduler once its grace period has passed, so a cycle is also run
then; with a backoff, a cycle is run when it ends. After the last job the replay stops when no
event is left (jobs that never fit stay pending) or at ``until`` seconds.
"""

from __future__ import annotations

import heapq
import itertools
import time
from collections.abc import Callable, Iterable, Mapping, Sequence

from toposched.emit.result import pod_nodes
from toposched.model import Cluster
from toposched.scheduler import CycleReport, ManualClock, PolicyRegistry, Scheduler, SchedulerConfig
from toposched.sim.config import Mode, SimConfig
from toposched.sim.failures import NodeChange
from toposched.sim.gangs import Shape, SimJob
from toposched.sim.ledger import Ledger
from toposched.sim.policies import queued_as
from toposched.sim.queues import team_queues
from toposched.sim.results import JobRecord, ReplayResult, Series
from toposched.store import MemoryStore, WorkloadState

OWNER = "trace"
SEARCH_AGAIN = 0.5  # seconds to the next cycle while a search goes on (the service loop's interval)
Progress = Callable[[int], None]  # called with the number of jobs submitted so far

Payload = tuple[int, int] | NodeChange | None  # (job index, admission) | a node change | a wake-up
# Event kinds, in the order they are handled at one time.
_FINISH, _NODE, _WAKE = 0, 1, 2
_SERVICE = SchedulerConfig()  # the service's defaults, for what a replay without a policy keeps


def scheduler_config(config: SimConfig, policy: str | None) -> SchedulerConfig:
    """The scheduler configuration of a replay: the service's, with the replay's policy (None:
    the workloads' and their front ends' ordering, queued as the service queues by default;
    else a name of ``sim.policies``: its ordering and its queueing), search, backoff, node
    grace, preemption, reservations and aging."""
    settings = config.scheduler
    chosen = queued_as(policy) if policy is not None else None
    return SchedulerConfig(
        policy=chosen.placement if chosen is not None else None,
        search=settings.search,
        node_grace_seconds=settings.node_grace_seconds,
        backoff_base_seconds=settings.backoff_seconds,
        backoff_max_seconds=settings.backoff_seconds,
        preemption=settings.preemption,
        reservations=settings.reservations,
        reservation_depth=settings.reservation_depth,
        quota_reservations=chosen.quota_reservations if chosen is not None else _SERVICE.quota_reservations,
        aging_seconds=settings.aging_seconds,
    )


def replay_scheduler(
    cluster: Cluster,
    clock: ManualClock,
    config: SchedulerConfig,
    policies: PolicyRegistry | None,
    quotas: Mapping[str, int] | None,
) -> Scheduler:
    """The service's scheduler over the in-memory store, holding ``cluster`` and the team queues
    of ``quotas``. Its searches are bounded by the steps they take (the scheduler's work clock):
    the virtual clock stands still while the cycle runs."""
    scheduler = Scheduler(MemoryStore(), clock, config, policies=policies)
    scheduler.import_cluster(cluster)
    for queue in team_queues(quotas or {}):
        scheduler.store.put_queue(queue)
    return scheduler


class Replay:
    """One policy's replay of ``jobs`` on ``cluster``; ``run`` returns what it recorded."""

    def __init__(
        self,
        cluster: Cluster,
        shape: Shape,
        jobs: Sequence[SimJob],
        config: SimConfig,
        policy: str | None,
        *,
        failures: Iterable[NodeChange] = (),
        until: float | None = None,
        policies: PolicyRegistry | None = None,
        quotas: Mapping[str, int] | None = None,
    ) -> None:
        """``policies``: the policies known by name; ``quotas``: guaranteed GPUs per team queue
        (``sim.queues.team_queues``)."""
        self.clock = ManualClock(0.0)
        self.scheduler = replay_scheduler(
            cluster, self.clock, scheduler_config(config, policy), policies, quotas
        )
        self.jobs, self.until = jobs, until
        self.grace, self.backoff = config.scheduler.node_grace_seconds, config.scheduler.backoff_seconds
        self.labels = {n.name: n.labels for n in cluster.nodes}
        self.ledger = Ledger(cluster, shape.topology.levels[-2] if len(shape.topology.levels) > 1 else "")
        self.records = [
            JobRecord(j.index, j.gpus, j.trace.submit, j.trace.queue, j.trace.carried) for j in jobs
        ]
        self.by_workload: dict[int, int] = {}  # workload id -> job index
        self.usage: dict[int, dict[str, int]] = {}  # job index -> GPUs per node while it holds them
        self.generation: dict[int, int] = {}  # job index -> admissions so far (stale ends are dropped)
        self.events: list[tuple[float, int, int, Payload]] = []
        self.waiting = 0  # jobs submitted and not holding GPUs: with none, freed GPUs need no cycle
        self.sequence = itertools.count()
        self.result = ReplayResult(policy or "default", self.ledger.total, self.records, Series(), [])
        self.failures = iter(failures)  # drawn one at a time: the next is queued as one is handled
        self._queue_next_failure()

    def run(self, progress: Progress | None = None, every: int = 500) -> ReplayResult:
        """Replay every event; ``progress`` is told the jobs submitted so far every ``every`` jobs."""
        started = time.process_time()
        arrivals, count = self.jobs, len(self.jobs)
        next_job = 0
        while next_job < count or self.events:
            arrival = arrivals[next_job].trace.submit if next_job < count else float("inf")
            now = min(arrival, self.events[0][0]) if self.events else arrival
            if self.until is not None and now > self.until:
                break
            if now == float("inf"):
                break
            self.clock.advance(now - self.clock.now())
            changed = self._handle_events(now)
            while next_job < count and arrivals[next_job].trace.submit == now:
                self._submit(arrivals[next_job])
                next_job += 1
                changed = True
                if progress is not None and next_job % every == 0:
                    progress(next_job)
            if changed or self.waiting:
                self._cycle(now)
            else:
                self._sample(now)
        if progress is not None:
            progress(next_job)
        self._check_nothing_lost()
        self.result.overcommits = self.ledger.overcommits
        self.result.end = self.clock.now()
        self.result.last_arrival = arrivals[next_job - 1].trace.submit if next_job else 0.0
        self.result.cpu_seconds = time.process_time() - started
        return self.result

    # -- events ----------------------------------------------------------------------------------
    def _push(self, at: float, kind: int, payload: Payload) -> None:
        heapq.heappush(self.events, (at, kind, next(self.sequence), payload))

    def _queue_next_failure(self) -> None:
        change = next(self.failures, None)
        if change is not None:
            self._push(change.time, _NODE, change)

    def _handle_events(self, now: float) -> bool:
        """Apply the events due at ``now``; True when one may change more than the free GPUs
        (a node change, or a wake-up), so a cycle must run even with no job waiting."""
        changed = False
        while self.events and self.events[0][0] == now:
            payload = heapq.heappop(self.events)[3]
            if isinstance(payload, tuple):
                index, generation = payload
                if self.generation.get(index) == generation and index in self.usage:
                    self._finish(index, now)
            elif isinstance(payload, NodeChange):
                self._node_change(payload, now)
                self._queue_next_failure()  # in time order, so it is never before ``now``
                changed = True
            else:  # a wake-up: nothing to do but run the cycle
                changed = True
        return changed

    def _submit(self, job: SimJob) -> None:
        record = self.scheduler.submit(job.documents, owner=OWNER, priority=job.trace.priority)
        self.records[job.index].workload = record.id
        self.by_workload[record.id] = job.index
        self.waiting += 1

    def _finish(self, index: int, now: float) -> None:
        self.scheduler.finish(self.records[index].workload)
        self.ledger.charge(self.usage.pop(index), -1, now)
        self.records[index].finished = now

    def _node_change(self, change: NodeChange, now: float) -> None:
        if change.node not in self.labels:
            return
        self.scheduler.set_node_ready(change.node, change.ready)
        self.ledger.set_ready(change.node, change.ready)
        if not change.ready:
            self.result.node_failures += 1
            self._push(now + self.grace + 1.0, _WAKE, None)  # the first cycle that sees it failed

    # -- the cycle -------------------------------------------------------------------------------
    def _cycle(self, now: float) -> None:
        report = self.scheduler.cycle()
        self.result.cycles += 1
        self._account(report, now)
        if report.unschedulable and self.backoff > 0:
            self._push(now + self.backoff, _WAKE, None)
        if report.searching:  # a complete search goes on in the next cycle, as the service's loop runs it
            self._push(now + SEARCH_AGAIN, _WAKE, None)
        self._sample(now)

    def _sample(self, now: float) -> None:
        series = self.result.series
        series.time.append(now)
        series.used_gpus.append(self.ledger.in_use)
        series.fragmented_gpus.append(self.ledger.fragmented())
        series.pending.append(self.waiting)

    def _account(self, report: CycleReport, now: float) -> None:
        """Mirror the cycle's evictions, replacements and admissions in the ledger and the records."""
        for workload in report.evicted:
            index = self.by_workload[workload]
            self.ledger.charge(self.usage.pop(index), -1, now)
            self.generation[index] += 1  # its pending end is stale: it starts over when readmitted
            self.records[index].evictions += 1
            self.waiting += 1
        for workload in report.replaced:
            index = self.by_workload[workload]
            if index in self.usage:
                self.ledger.charge(self.usage.pop(index), -1, now)
                self.ledger.charge(self._placed(index), 1, now)
            self.records[index].replacements += 1
        for workload in report.admitted:
            index = self.by_workload[workload]
            usage = self._placed(index)
            self.ledger.charge(usage, 1, now)
            self.waiting -= 1
            record = self.records[index]
            if record.admitted is None:
                record.admitted = now
                record.preferred = self._preferred_met(self.jobs[index], usage)
            generation = self.generation.get(index, -1) + 1
            self.generation[index] = generation
            self.result.admissions.append(index)
            self._push(now + self.jobs[index].trace.duration, _FINISH, (index, generation))

    def _placed(self, index: int) -> dict[str, int]:
        """GPUs per node of the job's current placement (read back from the scheduler), kept as
        the job's usage."""
        record = self.scheduler.get(self.records[index].workload)
        per_pod = self.jobs[index].gpus_per_pod
        usage: dict[str, int] = {}
        for node in pod_nodes(record.placement).values():
            if node is not None:
                usage[node] = usage.get(node, 0) + per_pod
        self.usage[index] = usage
        return usage

    def _preferred_met(self, job: SimJob, usage: dict[str, int]) -> bool | None:
        request = job.request
        if request.mode is not Mode.PREFERRED or request.level is None:
            return None
        return len({self.labels[node].get(request.level) for node in usage}) == 1

    def _check_nothing_lost(self) -> None:
        """Every submitted job is where the replay thinks it is: finished, holding GPUs, or pending."""
        for record in self.records:
            if not record.workload:
                continue
            state = self.scheduler.get(record.workload).state
            if record.finished is not None:
                expected: tuple[WorkloadState, ...] = (WorkloadState.FINISHED,)
            elif record.index in self.usage:
                expected = (WorkloadState.ADMITTED, WorkloadState.RUNNING)
            else:
                expected = (WorkloadState.PENDING,)
            if state not in expected:
                wanted = " or ".join(str(s) for s in expected)
                self.result.lost.append(
                    f"job {record.index} (workload {record.workload}) is {state}, not {wanted}"
                )
