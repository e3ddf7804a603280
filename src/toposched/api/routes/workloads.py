"""Workloads: submit, read, list, cancel and finish (users only their own; admins all), and pod
status reports (admin: the node agent's role)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query

from toposched.api.auth import AdminUser, CurrentUser, User
from toposched.api.bodies import PodStatusBody, SubmitBody, workload_json
from toposched.api.deps import LimitsDep, SchedulerDep
from toposched.model import PermissionDeniedError
from toposched.store import WorkloadRecord, WorkloadState

router = APIRouter(prefix="/v1/workloads", tags=["workloads"])


@router.post("", status_code=201)
def submit(body: SubmitBody, user: CurrentUser, scheduler: SchedulerDep) -> dict[str, Any]:
    """Store a workload as pending. The answer comes after the store commit, so 201 means durable."""
    record = scheduler.submit(
        body.spec, owner=user.name, priority=body.priority, topology=body.topology, kind=body.kind
    )
    return workload_json(record, with_spec=False)


@router.get("")
def list_workloads(
    user: CurrentUser,
    scheduler: SchedulerDep,
    limits: LimitsDep,
    owner: str | None = None,
    state: Annotated[list[WorkloadState] | None, Query()] = None,
    limit: Annotated[int | None, Query(ge=1)] = None,
) -> list[dict[str, Any]]:
    """Workloads in arrival order (the newest ``limit``). Users get only their own."""
    if not user.is_admin:
        if owner is not None and owner != user.name:
            raise PermissionDeniedError(f"user {user.name!r} may list only their own workloads")
        owner = user.name
    records = scheduler.list(owner=owner)
    if state:
        wanted = set(state)
        records = [r for r in records if r.state in wanted]
    cap = min(limit or limits.max_list, limits.max_list)
    return [workload_json(r) for r in records[-cap:]]


@router.get("/{workload_id}")
def get_workload(workload_id: int, user: CurrentUser, scheduler: SchedulerDep) -> dict[str, Any]:
    """One workload: state, placement, explanation and the submitted spec."""
    return workload_json(owned(scheduler.get(workload_id), user), with_spec=True)


@router.delete("/{workload_id}")
def cancel(workload_id: int, user: CurrentUser, scheduler: SchedulerDep) -> dict[str, Any]:
    """Cancel a workload, releasing any capacity it holds."""
    owned(scheduler.get(workload_id), user)
    return workload_json(scheduler.cancel(workload_id, actor=user.name, admin=user.is_admin))


@router.post("/{workload_id}/finish")
def finish(workload_id: int, user: CurrentUser, scheduler: SchedulerDep) -> dict[str, Any]:
    """Report that a workload completed, releasing its capacity (its owner or an admin)."""
    owned(scheduler.get(workload_id), user)
    return workload_json(scheduler.finish(workload_id, actor=user.name, admin=user.is_admin))


@router.put("/{workload_id}/pods/{pod}/status")
def pod_status(
    workload_id: int, pod: str, body: PodStatusBody, _: AdminUser, scheduler: SchedulerDep
) -> dict[str, Any]:
    """Report what one pod of an admitted gang is doing (Pending, Running, Failed, Terminating).
    A running pod marks the gang running; failed or ended pods feed node-failure detection."""
    record = scheduler.set_pod_status(workload_id, pod, body.status)
    statuses = scheduler.pod_statuses(workload_id)
    return {**workload_json(record), "pods": {name: str(status) for name, status in statuses.items()}}


def owned(record: WorkloadRecord, user: User) -> WorkloadRecord:
    """The record, when ``user`` may see it (its owner or an admin)."""
    if not user.is_admin and record.owner != user.name:
        raise PermissionDeniedError(f"workload {record.id} belongs to another user")
    return record
