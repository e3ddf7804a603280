"""``Scheduler``: the stateful loop over a ``Store`` and an injected ``Clock``.

The public methods are the service's verbs (intake, cluster changes, managed topologies and pools,
pod status) and ``cycle``, one pass of the numbered steps in ``steps``. Methods that touch the
loop's memory take one lock, held for one workload at a time by the cycle, so API threads and the
``run`` loop share one scheduler without waiting for a whole cycle. The request-path verbs take no
lock at all: ``submit`` compiles the spec outside it and stores the workload in one transaction;
``cancel`` and ``finish`` are one store transaction (the store checks the state), and the cycle
forgets ended workloads itself. ``run`` is event-driven:
every change that may let a workload in wakes it, and a timeout covers backoffs and node grace.
"""

from __future__ import annotations

import dataclasses
import logging
import threading
from collections.abc import Mapping, Sequence
from typing import Any

from toposched.emit.result import pod_nodes
from toposched.engine import PolicyRegistry, builtin_policies
from toposched.frontends.registry import Compiled, Registry, default_registry
from toposched.model import (
    Cluster,
    ConflictError,
    DefragPlan,
    Explanation,
    Node,
    NotFoundError,
    PermissionDeniedError,
    Placement,
    RunningPod,
    SpecError,
    Taint,
    Topology,
)
from toposched.scheduler import pools
from toposched.scheduler.admission import admit, admit_known
from toposched.scheduler.clock import Clock
from toposched.scheduler.defragging import plan_for_service
from toposched.scheduler.explaining import explain_pending
from toposched.scheduler.outcome import HOLDING, Outcome
from toposched.scheduler.registry import check_pool_update, check_topology_update
from toposched.scheduler.state import State, default_of, read_spec, shared_of, stored_spec
from toposched.scheduler.steps import heal
from toposched.scheduler.tracker import merge_external, node_event_data, pod_to_json
from toposched.scheduler.types import (
    CycleReport,
    EventType,
    ImportReport,
    LoopHealth,
    PodStatus,
    SchedulerConfig,
    Submission,
)
from toposched.scheduler.view import CycleView, refresh
from toposched.store import PoolRecord, Store, WorkloadRecord, WorkloadState

log = logging.getLogger(__name__)

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
    ) -> None:
        """Start from what ``store`` holds: node and pod facts are replayed from its event log.
        ``policies``: the placement policies known by name (the built-in ones by default);
        ``search_clock``: what bounds the engine's searches in time (``CpuClock`` in the service;
        None: the steps searched, at a fixed cost each, which moves even when ``clock`` does not)."""
        self._state = State(
            store, clock, config, registry or default_registry(), policies or builtin_policies(), search_clock
        )
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
    def submit(
        self,
        documents: Sequence[Any],
        *,
        owner: str,
        priority: int = 0,
        topology: str | None = None,
        kind: str | None = None,
        default_topology: str | None = None,
    ) -> WorkloadRecord:
        """Validate a parsed spec (SpecError listing every problem) and queue it as pending; never
        places. The topology is ``topology``, else the one the spec names, else
        ``default_topology``, else the only one defined (NotFoundError otherwise). ``priority`` 0
        keeps the spec's own priority. Durable on return (the store may commit it together with
        other submissions arriving at the same time).
        """
        return self.commit(
            self.prepare(
                documents,
                owner=owner,
                priority=priority,
                topology=topology,
                kind=kind,
                default_topology=default_topology,
            )
        )

    def prepare(
        self,
        documents: Sequence[Any],
        *,
        owner: str,
        priority: int = 0,
        topology: str | None = None,
        kind: str | None = None,
        default_topology: str | None = None,
    ) -> Submission:
        """The validation half of ``submit`` (SpecError listing every problem); stores nothing.
        The service runs it on CPU threads and ``commit`` on threads that mostly wait for the disk.
        The spec is stored as JSON: the documents and the front end that read them; the
        topologies the spec itself brings are kept with the workload (``own_topologies``), never
        among the stored ones: one user's spec never changes what another's uses."""
        chosen, compiled, stored = self._compile(documents, topology, kind, default_topology)
        gang = compiled.gang
        self._state.session.policy_of(gang)  # SpecError: a policy the workload names must be known
        own = tuple(t for t in compiled.topologies if stored.get(t.name) != t)
        record = WorkloadRecord(
            name=gang.name,
            kind=gang.kind or kind or "",
            owner=owner,
            spec=stored_spec(compiled.frontend, documents),
            priority=priority or gang.priority,
            topology=chosen.name,
            pool=compiled.pool,
            submitted_at=self._state.clock.now(),
            own_topologies=own,
            pods=gang.size,
        )
        return Submission(record, chosen, gang)

    def commit(self, submission: Submission) -> WorkloadRecord:
        """The storing half of ``submit``: queue a prepared workload as pending. Durable on return
        (the store may commit it together with other submissions arriving at the same time).
        QuotaExceededError, nothing stored, when it takes its owner's pending work past their
        quota (their own in the store, else ``SchedulerConfig.quota``)."""
        state, submitted = self._state, submission.record
        message = f"{submitted.kind} {submitted.name} submitted by {submitted.owner}"
        event = state.event(EventType.SUBMITTED, message)
        record = state.store.submit_workload(submitted, event, quota=state.config.quota)
        state.remember(record.id, submission.topology, submission.gang)  # the loop need not parse it again
        state.notify()
        return record

    def restore(self, submission: Submission, placement: Placement, message: str) -> WorkloadRecord:
        """Queue a prepared workload and admit it at once with ``placement``, one made before
        (the controller rebuilds it from its pods' records), as the cycle admits one
        (``admission.admit_known``). When the store refuses it (the nodes no longer hold it), the
        workload is cancelled and the ``ConflictError`` raised: it is never placed anew behind
        its pods' backs."""
        record = self.commit(submission)
        try:
            admit_known(self._state, record, submission.gang, placement, message)
        except ConflictError:
            self.cancel(record.id, actor=record.owner, admin=True)
            raise
        return self._state.store.get_workload(record.id)

    def cancel(self, workload_id: int, *, actor: str, admin: bool = False) -> WorkloadRecord:
        """End a workload as cancelled, freeing its capacity. Only its owner or an admin may."""
        return self._release(workload_id, WorkloadState.CANCELLED, actor, admin, f"cancelled by {actor}")

    def finish(self, workload_id: int, *, actor: str | None = None, admin: bool = True) -> WorkloadRecord:
        """The workload completed: free its capacity. With ``admin=False`` only its owner may."""
        message = f"finished (reported by {actor})" if actor else "finished"
        return self._release(workload_id, WorkloadState.FINISHED, actor, admin, message)

    def _release(
        self, workload_id: int, end: WorkloadState, actor: str | None, admin: bool, message: str
    ) -> WorkloadRecord:
        """One store transaction, without the scheduler lock: the store checks the state inside it,
        so a cycle admitting the workload meanwhile either commits first (and this frees it) or is
        refused. The loop forgets the workload's memory at its next cycle (``State.prune``)."""
        state = self._state
        record = state.store.get_workload(workload_id)
        if not admin and record.owner != actor:
            verb = "cancel" if end is WorkloadState.CANCELLED else "finish"
            raise PermissionDeniedError(
                f"workload {workload_id} belongs to {record.owner!r}; only its owner or an admin can {verb} it"
            )
        kind = EventType.CANCELLED if end is WorkloadState.CANCELLED else EventType.FINISHED
        done = state.store.release(workload_id, end, state.event(kind, message, workload_id))
        state.notify()
        return done

    def get(self, workload_id: int) -> WorkloadRecord:
        """One workload (NotFoundError when unknown)."""
        return self._state.store.get_workload(workload_id)

    def list(self, *, owner: str | None = None) -> list[WorkloadRecord]:
        """Workloads in arrival order, optionally one owner's."""
        return self._state.store.list_workloads(owner=owner)

    def set_pod_status(self, workload_id: int, pod: str, status: PodStatus | str) -> WorkloadRecord:
        """Report what one pod of an admitted gang is doing. A running pod marks the gang running."""
        state = self._state
        with state.lock:
            record = state.store.get_workload(workload_id)
            value = PodStatus(status)
            if not record.state.holds_capacity:
                raise ConflictError(f"workload {workload_id} is {record.state}: it has no pods to report on")
            nodes = pod_nodes(record.placement)
            if pod not in nodes:
                known = ", ".join(sorted(nodes)[:5]) or "none"
                raise NotFoundError("pod", pod, f"pods of workload {workload_id}: {known}")
            if state.tracker.status(workload_id, pod) is not value:
                state.store.append_event(
                    state.event(
                        EventType.POD_STATUS,
                        f"pod {pod} is {value}",
                        workload_id,
                        {"pod": pod, "status": str(value)},
                    )
                )
                state.tracker.set_status(workload_id, pod, value)
            if value is not PodStatus.RUNNING:
                state.notify()  # a failed or ended pod may make its node count as failed
            if value is PodStatus.RUNNING and record.state is WorkloadState.ADMITTED:
                return state.store.start(workload_id, state.event(EventType.STARTED, "running", workload_id))
            return state.store.get_workload(workload_id)

    def compiled(self, workload_id: int) -> Compiled:
        """A stored workload's spec compiled again against its topology and the stored pools:
        its gang and the objects its upstream controller would create (``SpecError`` when the
        spec no longer compiles). The controller's sync mode writes those objects."""
        state = self._state
        record = state.store.get_workload(workload_id)
        frontend, documents = read_spec(record)
        context = dataclasses.replace(
            state.context(own=record.own_topologies), topology=state.topology_of(record)
        )
        return state.registry.compile(documents, context, hint=frontend)

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
        with self._state.lock:
            record = self._state.store.get_workload(workload_id)
            return {pod: self._state.tracker.status(workload_id, pod) for pod in pod_nodes(record.placement)}

    # -- cluster ---------------------------------------------------------------------------------
    def import_cluster(
        self, cluster: Cluster, *, replace: bool = False, warnings: Sequence[str] = ()
    ) -> ImportReport:
        """Store the nodes and Topology objects of a parsed cluster dump (nodes upserted by name).
        Its running pods replace those of the nodes it lists; other nodes keep theirs, so a dump
        imported in chunks adds up. With ``replace`` the dump is the whole cluster: nodes it does
        not list are deleted (their gangs see them as failed) and all external pods replaced.
        Nodes left with less capacity than is booked on them are reported; the next cycle
        replaces or evicts their gangs as for a failed node. ``warnings`` (the parser's) are
        passed through to the report."""
        state = self._state
        imported = {node.name for node in cluster.nodes}
        with state.lock:
            before = {n.name: n for n in state.store.get_nodes()}
            state.store.put_nodes(cluster.nodes, replace=replace)
            for topology in cluster.topologies:
                self._put_topology(topology)
            for node in cluster.nodes:
                self._node_changed(before.get(node.name), node)
            removed_nodes = sorted(set(before) - imported) if replace else []
            for name in removed_nodes:
                self._node_deleted(name)
            old = state.tracker.external
            external = merge_external(old, cluster.pods, None if replace else imported)
            kept = {(p.namespace, p.name, p.node) for p in external}
            removed_pods = sorted(
                {f"{p.namespace}/{p.name}" for p in old if (p.namespace, p.name, p.node) not in kept}
            )
            data = {
                "pods": [pod_to_json(p) for p in cluster.pods],
                "nodes": sorted(imported),
                "replace": replace,
            }
            message = (
                f"imported {len(cluster.nodes)} nodes, {len(cluster.pods)} pods, "
                f"{len(cluster.topologies)} topologies" + (" (full replace)" if replace else "")
            )
            state.store.append_event(state.event(EventType.CLUSTER_IMPORTED, message, data=data))
            state.tracker.external = external
            booked = state.store.reservations_by_workload()
            after = {} if replace else dict(before)  # the nodes as just stored, without reading them back
            after.update((node.name, node) for node in cluster.nodes)
            view = CycleView.of([after[name] for name in sorted(after)], external, booked)
            overbooked = tuple(f"node {n}: {why}" for n, why in sorted(view.overbooked().items()))
            state.notify()
            return ImportReport(
                len(cluster.nodes),
                len(cluster.pods),
                tuple(t.name for t in cluster.topologies),
                tuple(warnings),
                tuple(removed_nodes),
                tuple(removed_pods),
                overbooked,
            )

    def set_node_ready(self, name: str, ready: bool) -> Node:
        """Mark a node Ready or NotReady (the NotReady time starts now)."""
        return self._update_node(name, ready=ready)

    def set_node_taints(self, name: str, taints: Sequence[Taint]) -> Node:
        """Replace a node's taints (new taints start their clock now; kept ones keep theirs)."""
        return self._update_node(name, taints=tuple(taints))

    def cordon(self, name: str, unschedulable: bool = True) -> Node:
        """Cordon (or uncordon) a node: no new pods; treated like a NoSchedule taint."""
        return self._update_node(name, unschedulable=unschedulable)

    def delete_node(self, name: str) -> None:
        """Forget a node; gangs with pods on it see it as failed in the next cycle."""
        state = self._state
        with state.lock:
            state.store.delete_node(name)
            self._node_deleted(name)
        state.notify()

    # -- managed topologies and pools (the guards live in ``registry.guards``) --------------------
    def put_topology(self, topology: Topology) -> None:
        """Add or update a topology. Aliases may always change; changing the levels of one that
        admitted or running workloads use is a ConflictError (their placements are in those levels)."""
        with self._state.lock:
            self._put_topology(topology)
        self._state.notify()

    def delete_topology(self, name: str) -> None:
        """Delete a topology; ConflictError naming the pending, admitted or running workloads and
        the pools that still reference it (the delete is refused, not deferred)."""
        with self._state.lock:
            self._state.store.delete_topology(name)

    def put_pool(
        self,
        name: str,
        *,
        topology: str = "",
        topology_keys: Sequence[Mapping[str, Any]] = (),
        description: str = "",
        backend: Mapping[str, Any] | None = None,
    ) -> PoolRecord:
        """Create or replace an OSMO pool, validated by OSMO's rules (``TopologySpecError`` with
        field paths). ``topology`` must exist; the keys cannot change while the pool's workloads
        hold capacity."""
        pool = pools.validate_pool(name, list(topology_keys), description=description, backend=backend)
        state = self._state
        with state.lock:
            own: Topology | None = None
            if not topology and pool.keys:
                # OSMO keeps one Topology per pool (osmo-pool-<namespace>-<pool>-topology); the
                # service manages it with the pool, under the same guards as any topology.
                topology = pool.topology_name
                own = Topology.create(topology, [k.label for k in pool.topology_keys])
            elif topology:
                known = [t.name for t in state.store.list_topologies()]
                if topology not in known:
                    raise pools.unknown_topology(topology, known)
            try:
                old = pools.stored_pool(state.store.get_pool(name)).keys
            except NotFoundError:
                old = ()
            holding = [w.id for w in state.store.list_workloads(states=HOLDING) if w.pool == name]
            check_pool_update(name, old, pool.keys, holding)
            if own is not None:
                self._put_topology(own)
            record = pools.pool_record(pool, topology)
            state.store.put_pool(record)
            return record

    def delete_pool(self, name: str) -> None:
        """Delete a pool; ConflictError while a pending, admitted or running workload uses it."""
        with self._state.lock:
            self._state.store.delete_pool(name)

    def pool_keys(self, name: str) -> PoolKeys:
        """A pool's topology keys ``[{key, label, order}]``, coarsest first, as OSMO parses them."""
        return pools.keys_of(self._state.store.get_pool(name))

    # -- the loop --------------------------------------------------------------------------------
    def cycle(self) -> CycleReport:
        """One pass: node health, replacement or eviction, then admission (see ``steps``). The lock
        is held while reading the cluster and then for one workload at a time; cycles never
        overlap (they share the snapshots kept between cycles)."""
        state = self._state
        store = state.store
        with state.cycling:
            with state.lock:  # what changed since the last cycle, written here or by someone else
                view = refresh(state)
                holding = list(view.booked)
            out = Outcome()
            heal(state, view, out)
            pending = store.queue((WorkloadState.PENDING,))  # after heal: evicted gangs too
            with state.lock:
                state.prune(holding + [w.id for w in pending])
            admit(state, view, out, pending)
            state.health.last_cycle_at = state.clock.now()
        return CycleReport(
            tuple(out.admitted),
            tuple(out.unschedulable),
            tuple(out.evicted),
            tuple(out.replaced),
            tuple(out.searching),
        )

    def health(self) -> LoopHealth:
        """A copy of the loop's health: last cycle, last cycle error, broken workloads."""
        now = self._state.health
        return LoopHealth(now.last_cycle_at, now.last_error, now.last_error_at, dict(now.broken))

    def wake(self) -> None:
        """Make ``run`` start its next cycle now."""
        self._state.notify()

    def run(self, stop: threading.Event, interval: float = 0.5, *, settle: float = 0.02) -> None:
        """Cycle until ``stop`` is set: when woken (submission, release, node, topology or pod
        change), else when the next backoff ends, and at least every ``interval`` seconds (for
        node grace periods and changes other processes write to the store). After a cycle the loop
        rests ``settle`` seconds, so a burst of requests is handled by one cycle instead of one
        each. Store failures are logged and retried on the next pass."""
        state = self._state
        while not stop.is_set():
            state.wake.clear()
            try:
                self.cycle()
            except Exception as exc:  # a service loop must survive a bad pass; the next one retries
                log.exception("scheduling cycle failed; retrying")
                state.health.last_error = f"{type(exc).__name__}: {exc}"
                state.health.last_error_at = state.clock.now()
            if stop.wait(min(settle, interval)):
                return
            state.wake.wait(self._sleep(interval))

    def _sleep(self, interval: float) -> float:
        """Seconds until the loop has something to do by itself: the next backoff end, at most ``interval``."""
        state = self._state
        ends = [b.not_before for b in list(state.backoff.values())]
        if not ends:
            return interval
        return min(interval, max(0.001, min(ends) - state.clock.now()))

    # -- helpers ---------------------------------------------------------------------------------
    def _compile(
        self, documents: Sequence[Any], topology: str | None, kind: str | None, default_topology: str | None
    ) -> tuple[Topology, Compiled, dict[str, Topology]]:
        """The topology a submission uses and its gang: the requested topology, else the one the
        spec names, else the caller's default, else the only shared one (pool topologies are
        their pool's own); and the stored topologies by name."""
        state = self._state
        pool_records = state.store.list_pools()
        context = state.context(pool_records)
        known = shared_of(pool_records, context.topologies)
        default = default_topology or (known[0].name if len(known) == 1 else None)
        try:
            chosen, compiled = state.registry.compile_for(
                documents, context, topology=topology, default=default, hint=kind
            )
        except SpecError as exc:
            if any(p.path == "topology" for p in exc.problems):
                default_of(known)  # NotFoundError: none or several are defined; name one
            raise
        return chosen, compiled, {t.name: t for t in context.topologies}

    def _put_topology(self, topology: Topology) -> None:
        store = self._state.store
        try:
            old: Topology | None = store.get_topology(topology.name)
        except NotFoundError:
            old = None
        holding = [w.id for w in store.list_workloads(states=HOLDING) if w.topology == topology.name]
        check_topology_update(old, topology, holding)
        store.put_topology(topology)

    def _update_node(
        self,
        name: str,
        *,
        ready: bool | None = None,
        taints: tuple[Taint, ...] | None = None,
        unschedulable: bool | None = None,
    ) -> Node:
        state = self._state
        with state.lock:
            before = state.store.get_node(name)
            node = state.store.update_node(name, ready=ready, taints=taints, unschedulable=unschedulable)
            self._node_changed(before, node)
            return node

    def _node_deleted(self, name: str) -> None:
        """Stop the deleted node's clocks and log its deletion as an event."""
        state = self._state
        state.tracker.observe(name, None, (), state.clock.now())
        state.store.append_event(
            state.event(EventType.NODE, f"node {name} deleted", data=node_event_data(name, None))
        )

    def _node_changed(self, before: Node | None, node: Node) -> None:
        """Start or stop the node's NotReady and taint clocks and log the change as an event."""
        state = self._state
        old = node_event_data(node.name, before) if before is not None else None
        new = node_event_data(node.name, node)
        state.tracker.observe_node(node, state.clock.now())
        if old != new and (before is not None or not node.ready or node.taints or node.unschedulable):
            state.store.append_event(state.event(EventType.NODE, _describe(node), data=new))


def _describe(node: Node) -> str:
    facts = ["Ready" if node.ready else "NotReady"]
    if node.unschedulable:
        facts.append("cordoned")
    facts += [f"taint {t}" for t in node.taints]
    return f"node {node.name}: {', '.join(facts)}"
