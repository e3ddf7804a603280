"""``Scheduler``: the stateful loop over a ``Store`` and an injected ``Clock``.

The public methods are the service's verbs (intake, cluster changes, managed topologies and pools,
pod status) and ``cycle``, one pass of the numbered steps in ``steps``. Methods that touch the
loop's memory take one lock, held for one workload at a time by the cycle, so API threads and the
``run`` loop share one scheduler without waiting for a whole cycle. The request-path verbs take no
lock at all: ``submit`` compiles the spec outside it and stores the workload in one transaction;
``cancel`` and ``finish`` are one store transaction (the store checks the state), and the cycle
forgets ended workloads itself. ``run`` is event-driven:
every change that may let a workload in wakes it, and a timeout covers backoffs and node grace.

The verbs are carried out by one module each, over the loop's ``State``: ``intake`` (submit,
prepare, commit, restore), ``workloads`` (release, pod status, compiled spec),
``cluster_changes`` (imports, node changes), ``managed`` (topologies and pools under their
guards), ``cycle`` (one pass) and ``loop`` (``run``).
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Sequence
from typing import Any, Unpack

from toposched.engine import PolicyRegistry, builtin_policies
from toposched.frontends.registry import Compiled, Registry, default_registry
from toposched.model import (
    Cluster,
    DefragPlan,
    Explanation,
    Node,
    Placement,
    RunningPod,
    Taint,
    Topology,
)
from toposched.scheduler import cluster_changes, intake, managed, pools, workloads
from toposched.scheduler.clock import Clock
from toposched.scheduler.cycle import run_cycle
from toposched.scheduler.defragging import plan_for_service
from toposched.scheduler.explaining import explain_pending
from toposched.scheduler.intake import SubmitOptions
from toposched.scheduler.loop import run_loop
from toposched.scheduler.managed import PoolFields
from toposched.scheduler.preemption import PreemptionRule
from toposched.scheduler.queue_cycle import queue_name, queue_tree
from toposched.scheduler.queue_status import QueueStatus, queue_statuses
from toposched.scheduler.state import State
from toposched.scheduler.types import (
    CycleReport,
    ImportReport,
    LoopHealth,
    PodStatus,
    SchedulerConfig,
    Submission,
)
from toposched.store import PoolRecord, QueueEntry, Store, WorkloadRecord, WorkloadState

QueueList = list[QueueStatus]
EntryList = list[QueueEntry]
PoolKeys = list[dict[str, object]]  # named here: inside the class, ``list`` is a method


class Scheduler:
    """Queue, admission, release, node failures and taints; topologies with lifecycle guards."""

    def __init__(
        self,
        store: Store,
        clock: Clock,
        config: SchedulerConfig = SchedulerConfig(),  # noqa: B008 - frozen, so sharing it is safe
        *,
        registry: Registry | None = None,
        policies: PolicyRegistry | None = None,
        search_clock: Clock | None = None,
        preemption_rule: PreemptionRule | None = None,
    ) -> None:
        """Start from what ``store`` holds: node and pod facts are replayed from its event log.
        ``policies``: the placement policies known by name (the built-in ones by default);
        ``search_clock``: what bounds the engine's searches in time (``CpuClock`` in the service;
        None: the steps searched, at a fixed cost each, which moves even when ``clock`` does not);
        ``preemption_rule``: which gangs a pending gang may evict (``LowerPriority`` by default)."""
        self._state = State(
            store, clock, config, registry or default_registry(), policies or builtin_policies(), search_clock
        )
        if preemption_rule is not None:
            self._state.rule = preemption_rule
        if config.policy is not None:  # SpecError naming the setting when no policy has that name
            self._state.policies.get(config.policy)
        self._state.tracker.replay(store.list_events())
        now = clock.now()
        for node in store.get_nodes():
            self._state.tracker.observe_node(node, self._state.tracker.not_ready.get(node.name, now))

    @property
    def store(self) -> Store:
        return self._state.store

    @property
    def config(self) -> SchedulerConfig:
        return self._state.config

    @property
    def registry(self) -> Registry:
        """The front-end registry (register more front ends here)."""
        return self._state.registry

    # -- intake ----------------------------------------------------------------------------------
    def submit(self, documents: Sequence[Any], **options: Unpack[SubmitOptions]) -> WorkloadRecord:
        """Validate a parsed spec (SpecError listing every problem) and queue it as pending; never
        places (``prepare``, then ``commit``; ``SubmitOptions`` says what each option does)."""
        return self.commit(self.prepare(documents, **options))

    def prepare(self, documents: Sequence[Any], **options: Unpack[SubmitOptions]) -> Submission:
        """The validation half of ``submit`` (``intake.prepare``); stores nothing. The service runs
        it on CPU threads and ``commit`` on threads that mostly wait for the disk."""
        return intake.prepare(self._state, documents, **options)

    def commit(self, submission: Submission) -> WorkloadRecord:
        """The storing half of ``submit`` (``intake.commit``): queue a prepared workload as pending,
        durable on return; QuotaExceededError, nothing stored, past its owner's quota."""
        return intake.commit(self._state, submission)

    def restore(self, submission: Submission, placement: Placement, message: str) -> WorkloadRecord:
        """Queue a prepared workload and admit it at once with ``placement``, one made before
        (``intake.restore``); cancelled, and the ``ConflictError`` raised, when it no longer fits."""
        return intake.restore(self._state, submission, placement, message)

    def cancel(self, workload_id: int, *, actor: str, admin: bool = False) -> WorkloadRecord:
        """End a workload as cancelled, freeing its capacity. Only its owner or an admin may."""
        return workloads.release(
            self._state, workload_id, WorkloadState.CANCELLED, actor, admin, f"cancelled by {actor}"
        )

    def finish(self, workload_id: int, *, actor: str | None = None, admin: bool = True) -> WorkloadRecord:
        """The workload completed: free its capacity. With ``admin=False`` only its owner may."""
        message = f"finished (reported by {actor})" if actor else "finished"
        return workloads.release(self._state, workload_id, WorkloadState.FINISHED, actor, admin, message)

    def get(self, workload_id: int) -> WorkloadRecord:
        """One workload (NotFoundError when unknown)."""
        return self._state.store.get_workload(workload_id)

    def list(self, *, owner: str | None = None) -> list[WorkloadRecord]:
        """Workloads in arrival order, optionally one owner's."""
        return self._state.store.list_workloads(owner=owner)

    def set_pod_status(self, workload_id: int, pod: str, status: PodStatus | str) -> WorkloadRecord:
        """Report what one pod of an admitted gang is doing. A running pod marks the gang running."""
        return workloads.set_pod_status(self._state, workload_id, pod, status)

    def compiled(self, workload_id: int) -> Compiled:
        """A stored workload's spec compiled again (``workloads.compiled``); the controller's sync
        mode writes the objects it brings."""
        return workloads.compiled(self._state, workload_id)

    def topology_of(self, workload_id: int) -> Topology:
        """The topology a stored workload uses: the one its spec brought, a stored one, or the
        default (NotFoundError when it is gone)."""
        return self._state.topology_of(self._state.store.get_workload(workload_id))

    def explain(self, workload_id: int, *, viewer: str | None = None) -> Explanation:
        """Why a pending workload waits and what would place it, on the current state (see
        ``explaining``); ``viewer`` names the user whose workloads may be named (None: all)."""
        return explain_pending(self._state, workload_id, viewer=viewer)

    def defrag(self, level: str, count: int, topology: str | None = None) -> DefragPlan:
        """Which workloads to move so ``count`` whole domains of ``level`` become free (see
        ``defragging``)."""
        return plan_for_service(self._state, level, count, topology)

    def external_pods(self) -> tuple[RunningPod, ...]:
        """The running pods toposched did not place, as the cluster imports left them."""
        return self._state.tracker.external

    def pod_statuses(self, workload_id: int) -> dict[str, PodStatus]:
        """The known status of every pod of a workload's placement."""
        return workloads.pod_statuses(self._state, workload_id)

    # -- cluster ---------------------------------------------------------------------------------
    def import_cluster(
        self, cluster: Cluster, *, replace: bool = False, warnings: Sequence[str] = ()
    ) -> ImportReport:
        """Store the nodes, running pods and Topology objects of a parsed cluster dump; with
        ``replace`` the dump is the whole cluster (see ``cluster_changes.import_cluster``)."""
        return cluster_changes.import_cluster(self._state, cluster, replace=replace, warnings=warnings)

    def set_node_ready(self, name: str, ready: bool) -> Node:
        """Mark a node Ready or NotReady (the NotReady time starts now)."""
        return cluster_changes.update_node(self._state, name, ready=ready)

    def set_node_taints(self, name: str, taints: Sequence[Taint]) -> Node:
        """Replace a node's taints (new taints start their clock now; kept ones keep theirs)."""
        return cluster_changes.update_node(self._state, name, taints=tuple(taints))

    def cordon(self, name: str, unschedulable: bool = True) -> Node:
        """Cordon (or uncordon) a node: no new pods; treated like a NoSchedule taint."""
        return cluster_changes.update_node(self._state, name, unschedulable=unschedulable)

    def delete_node(self, name: str) -> None:
        """Forget a node; gangs with pods on it see it as failed in the next cycle."""
        cluster_changes.delete_node(self._state, name)

    # -- managed topologies and pools (the guards live in ``guards``) --------------------
    def put_topology(self, topology: Topology) -> None:
        """Add or update a topology. Aliases may always change; changing the levels of one that
        admitted or running workloads use is a ConflictError (their placements are in those levels)."""
        with self._state.lock:
            managed.put_topology(self._state, topology)
        self._state.notify()

    def delete_topology(self, name: str) -> None:
        """Delete a topology; ConflictError naming the pending, admitted or running workloads and
        the pools that still reference it (the delete is refused, not deferred)."""
        with self._state.lock:
            self._state.store.delete_topology(name)

    def put_pool(self, name: str, **fields: Unpack[PoolFields]) -> PoolRecord:
        """Create or replace an OSMO pool, validated by OSMO's rules (see ``managed.put_pool``)."""
        return managed.put_pool(self._state, name, **fields)

    def delete_pool(self, name: str) -> None:
        """Delete a pool; ConflictError while a pending, admitted or running workload uses it."""
        with self._state.lock:
            self._state.store.delete_pool(name)

    def queues(self) -> QueueList:
        """Every queue with its usage, quota, borrowing, share and gangs (``queue_status``)."""
        return queue_statuses(self._state)

    def admission_order(self, pending: Iterable[QueueEntry]) -> EntryList:
        """Pending workloads in the order a cycle tries them within a queue (``aging.Ages``)."""
        state = self._state
        return state.ages.ranked(pending, state.clock.now(), state.config.aging_seconds)

    def queue_names(self, workloads: Iterable[int]) -> dict[int, str]:
        """The scheduling queue of each workload (``QueueTree.queue_of`` on its compiled gang)."""
        tree = queue_tree(self._state)
        return {w: queue_name(self._state, tree, w) for w in workloads}

    def pool_keys(self, name: str) -> PoolKeys:
        """A pool's topology keys ``[{key, label, order}]``, coarsest first, as OSMO parses them."""
        return pools.keys_of(self._state.store.get_pool(name))

    # -- the loop --------------------------------------------------------------------------------
    def cycle(self) -> CycleReport:
        """One pass: node health, replacement or eviction, then admission (``cycle.run_cycle``)."""
        return run_cycle(self._state)

    def health(self) -> LoopHealth:
        """A copy of the loop's health: last cycle, last cycle error, broken workloads."""
        now = self._state.health
        return LoopHealth(now.last_cycle_at, now.last_error, now.last_error_at, dict(now.broken))

    def wake(self) -> None:
        """Make ``run`` start its next cycle now."""
        self._state.notify()

    def run(self, stop: threading.Event, interval: float = 0.5, *, settle: float = 0.02) -> None:
        """Cycle until ``stop`` is set: when woken, else when the next backoff ends, at least every
        ``interval`` seconds, resting ``settle`` seconds after each (``loop.run_loop``)."""
        run_loop(self._state, self.cycle, stop, interval, settle)
