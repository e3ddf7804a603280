"""A stored workload's verbs for the ``Scheduler``: its end (cancelled or finished, freeing its
capacity), what its pods report, and its spec compiled again. Each is one store transaction or
runs under the loop's lock for one workload."""

from __future__ import annotations

import dataclasses

from toposched.emit.result import pod_nodes
from toposched.frontends.registry import Compiled
from toposched.model import ConflictError, NotFoundError, PermissionDeniedError
from toposched.scheduler.state import State, read_spec
from toposched.scheduler.types import EventType, PodStatus
from toposched.store import WorkloadRecord, WorkloadState


def release(
    state: State, workload_id: int, end: WorkloadState, actor: str | None, admin: bool, message: str
) -> WorkloadRecord:
    """One store transaction, without the scheduler lock: the store checks the state inside it,
    so a cycle admitting the workload meanwhile either commits first (and this frees it) or is
    refused. The loop forgets the workload's memory at its next cycle (``State.prune``)."""
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


def set_pod_status(state: State, workload_id: int, pod: str, status: PodStatus | str) -> WorkloadRecord:
    """Report what one pod of an admitted gang is doing. A running pod marks the gang running."""
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


def pod_statuses(state: State, workload_id: int) -> dict[str, PodStatus]:
    """The known status of every pod of a workload's placement."""
    with state.lock:
        record = state.store.get_workload(workload_id)
        return {pod: state.tracker.status(workload_id, pod) for pod in pod_nodes(record.placement)}


def compiled(state: State, workload_id: int) -> Compiled:
    """A stored workload's spec compiled again against its topology and the stored pools:
    its gang and the objects its upstream controller would create (``SpecError`` when the
    spec no longer compiles). The controller's sync mode writes those objects."""
    record = state.store.get_workload(workload_id)
    frontend, documents = read_spec(record)
    context = dataclasses.replace(
        state.context(own=record.own_topologies, pool=record.pool), topology=state.topology_of(record)
    )
    return state.registry.compile(documents, context, hint=frontend)
