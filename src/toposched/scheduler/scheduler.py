"""``Scheduler``: the stateful loop over a ``Store`` and an injected ``Clock``.

The public methods are the service's verbs (intake, cluster changes, pod status) and ``cycle``,
one pass of the numbered steps in ``steps``. Every method takes one lock, so an API thread and
the ``run`` loop can share one scheduler.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence

from toposched.frontends.cluster import load_cluster_report
from toposched.model import (
    ConflictError,
    Node,
    NotFoundError,
    PermissionDeniedError,
    Taint,
    Topology,
)
from toposched.scheduler.clock import Clock
from toposched.scheduler.codec import pod_nodes
from toposched.scheduler.intake import Intake, default_intake
from toposched.scheduler.state import State
from toposched.scheduler.steps import HOLDING, Outcome, admit, heal
from toposched.scheduler.tracker import node_event_data, pod_to_json
from toposched.scheduler.types import CycleReport, EventType, ImportReport, PodStatus, SchedulerConfig
from toposched.scheduler.view import CycleView
from toposched.store import Store, WorkloadRecord, WorkloadState

log = logging.getLogger(__name__)


class Scheduler:
    """Queue, admission, release, node failures and taints; topologies with lifecycle guards."""

    def __init__(
        self,
        store: Store,
        clock: Clock,
        config: SchedulerConfig = SchedulerConfig(),  # noqa: B008 - frozen, so sharing it is safe
        *,
        intake: Intake | None = None,
    ) -> None:
        """Start from what ``store`` holds: node and pod facts are replayed from its event log."""
        self._state = State(store, clock, config, intake or default_intake())
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
    def intake(self) -> Intake:
        """The front-end registry (register more front ends here)."""
        return self._state.intake

    # -- intake ----------------------------------------------------------------------------------
    def submit(
        self,
        spec_text: str,
        *,
        owner: str,
        priority: int = 0,
        topology: str | None = None,
        kind: str | None = None,
    ) -> WorkloadRecord:
        """Validate a spec (SpecError listing every problem) and queue it as pending; never places.

        The topology is ``topology``, else the one the spec names, else the only one defined
        (NotFoundError otherwise). ``priority`` 0 keeps the spec's own priority.
        """
        state = self._state
        with state.lock:
            chosen = state.store.get_topology(topology) if topology else None
            gang = state.intake.load(spec_text, kind=kind, topology=chosen)
            if chosen is None:
                chosen = (
                    state.store.get_topology(gang.topology) if gang.topology else state.default_topology()
                )
                gang = state.intake.load(spec_text, kind=kind, topology=chosen)
            record = state.store.submit_workload(
                WorkloadRecord(
                    name=gang.name,
                    kind=gang.kind or kind or "",
                    owner=owner,
                    spec=spec_text,
                    priority=priority or gang.priority,
                    topology=chosen.name,
                    submitted_at=state.clock.now(),
                )
            )
            state.store.append_event(
                state.event(
                    EventType.SUBMITTED, f"{record.kind} {record.name} submitted by {owner}", record.id
                )
            )
            return state.store.get_workload(record.id)

    def cancel(self, workload_id: int, *, actor: str, admin: bool = False) -> WorkloadRecord:
        """End a workload as cancelled, freeing its capacity. Only its owner or an admin may."""
        state = self._state
        with state.lock:
            record = state.store.get_workload(workload_id)
            if not admin and record.owner != actor:
                raise PermissionDeniedError(
                    f"workload {workload_id} belongs to {record.owner!r}; only its owner or an admin can cancel it"
                )
            done = state.store.release(
                workload_id,
                WorkloadState.CANCELLED,
                state.event(EventType.CANCELLED, f"cancelled by {actor}", workload_id),
            )
            state.forget(workload_id)
            return done

    def finish(self, workload_id: int) -> WorkloadRecord:
        """The workload completed: free its capacity."""
        state = self._state
        with state.lock:
            done = state.store.release(
                workload_id, WorkloadState.FINISHED, state.event(EventType.FINISHED, "finished", workload_id)
            )
            state.forget(workload_id)
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
            if value is PodStatus.RUNNING and record.state is WorkloadState.ADMITTED:
                return state.store.start(workload_id, state.event(EventType.STARTED, "running", workload_id))
            return state.store.get_workload(workload_id)

    def pod_statuses(self, workload_id: int) -> dict[str, PodStatus]:
        """The known status of every pod of a workload's placement."""
        with self._state.lock:
            record = self._state.store.get_workload(workload_id)
            return {pod: self._state.tracker.status(workload_id, pod) for pod in pod_nodes(record.placement)}

    # -- cluster ---------------------------------------------------------------------------------
    def import_cluster(self, text: str) -> ImportReport:
        """Store the nodes and Topology objects of a kubectl dump (nodes are upserted by name);
        its pods replace the previous external usage."""
        state = self._state
        cluster, warnings = load_cluster_report(text, source="cluster")
        with state.lock:
            before = {n.name: n for n in state.store.get_nodes()}
            state.store.put_nodes(cluster.nodes)
            for topology in cluster.topologies:
                self._put_topology(topology)
            for node in cluster.nodes:
                self._node_changed(before.get(node.name), node)
            pods = [pod_to_json(p) for p in cluster.pods]
            state.store.append_event(
                state.event(
                    EventType.CLUSTER_IMPORTED,
                    f"imported {len(cluster.nodes)} nodes, {len(cluster.pods)} pods, {len(cluster.topologies)} topologies",
                    data={"pods": pods},
                )
            )
            state.tracker.external = cluster.pods
            return ImportReport(
                len(cluster.nodes),
                len(cluster.pods),
                tuple(t.name for t in cluster.topologies),
                tuple(warnings),
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
            state.tracker.observe(name, None, (), state.clock.now())
            state.store.append_event(
                state.event(EventType.NODE, f"node {name} deleted", data=node_event_data(name, None))
            )

    def put_topology(self, topology: Topology) -> None:
        """Add or update a topology. Changing the levels of one that admitted workloads use is a
        ConflictError (their placements are expressed in those levels)."""
        with self._state.lock:
            self._put_topology(topology)

    def delete_topology(self, name: str) -> None:
        """Delete a topology; ConflictError while a live workload or pool references it."""
        with self._state.lock:
            self._state.store.delete_topology(name)

    # -- the loop --------------------------------------------------------------------------------
    def cycle(self) -> CycleReport:
        """One pass: node health, replacement or eviction, then admission (see ``steps``)."""
        state = self._state
        with state.lock:
            store = state.store
            nodes = store.get_nodes()
            now = state.clock.now()
            for node in nodes:
                state.tracker.observe_node(node, now)  # picks up changes written by someone else
            booked = {w.id: store.reservations(w.id) for w in store.list_workloads(states=HOLDING)}
            view = CycleView(nodes, state.tracker.external, booked)
            out = Outcome()
            heal(state, view, out)
            admit(state, view, out)
            return CycleReport(
                tuple(out.admitted), tuple(out.unschedulable), tuple(out.evicted), tuple(out.replaced)
            )

    def run(self, stop: threading.Event, interval: float = 0.5) -> None:
        """Cycle every ``interval`` seconds until ``stop`` is set. Store failures are logged and
        retried on the next pass."""
        while not stop.is_set():
            try:
                self.cycle()
            except Exception:  # a service loop must survive a bad pass; the next one retries
                log.exception("scheduling cycle failed; retrying")
            stop.wait(interval)

    # -- helpers ---------------------------------------------------------------------------------
    def _put_topology(self, topology: Topology) -> None:
        store = self._state.store
        try:
            old = store.get_topology(topology.name)
        except NotFoundError:
            old = None
        if old is not None and old.levels != topology.levels:
            users = [w.id for w in store.list_workloads(states=HOLDING) if w.topology == topology.name]
            if users:
                listed = ", ".join(str(u) for u in users[:5])
                raise ConflictError(
                    f"topology {topology.name!r} levels cannot change while workloads {listed} hold capacity "
                    "on it (wait for them to finish, or add a new topology)"
                )
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
