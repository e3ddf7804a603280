"""Workloads: submit, read, list, cancel and finish (users only their own; admins all), and pod
status reports (admin: the node agent's role)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query, Response

from toposched.api.auth import AdminUser, CurrentUser, User
from toposched.api.bodies import PodStatusBody, SubmitBody, workload_json
from toposched.api.deps import CommitsDep, LimitsDep, OffloadDep, SchedulerDep, StoreDep, SubmissionsDep
from toposched.api.offload import json_response
from toposched.api.params import After, Limit, WorkloadId, next_link
from toposched.frontends.parse import parse_documents
from toposched.model import NotFoundError, PermissionDeniedError
from toposched.scheduler import Scheduler, Submission
from toposched.store import WorkloadRecord, WorkloadState

router = APIRouter(prefix="/v1/workloads", tags=["workloads"])

# The hot routes (submit, read, cancel) are ``async`` and run every store call on an offload pool:
# each SQLite call releases the GIL, and winning it back on the event loop can take a switch
# interval (5 ms) per call while other threads compile specs, stalling every connection.
_WORKLOAD = {"description": "The workload (see GET /v1/workloads/{id})"}


@router.post("", status_code=201, response_model=None, responses={201: _WORKLOAD})
async def submit(
    body: SubmitBody,
    user: CurrentUser,
    scheduler: SchedulerDep,
    submissions: SubmissionsDep,
    commits: CommitsDep,
) -> Response:
    """Store a workload as pending. The answer comes after the store commit, so 201 means durable."""
    # Compiling is CPU work: submissions get their own small pool, so reads and cancels never
    # queue behind a burst of them. Storing is mostly waiting for the group commit (one
    # transaction for every submission waiting meanwhile), on a separate, larger pool: waiting
    # threads cost no CPU, and a compile thread never sits idle behind the disk, which would cap
    # each batch at the compile pool's size.
    prepared = await submissions.run(_prepare, scheduler, body, user.name)
    record = await commits.run(scheduler.commit, prepared)
    return json_response(workload_json(record, with_spec=False), 201)


def _prepare(scheduler: Scheduler, body: SubmitBody, owner: str) -> Submission:
    """Parse the spec (the service's edge: bounded, once) and compile it."""
    documents = parse_documents(body.spec, source="spec")
    return scheduler.prepare(
        documents, owner=owner, priority=body.priority, topology=body.topology, kind=body.kind
    )


@router.get("")
def list_workloads(
    user: CurrentUser,
    store: StoreDep,
    limits: LimitsDep,
    response: Response,
    owner: str | None = None,
    state: Annotated[list[WorkloadState] | None, Query()] = None,
    after: After = 0,
    limit: Limit = None,
) -> list[dict[str, Any]]:
    """Workloads in submission (id) order, a page at a time: ids above ``after``, at most
    ``limit`` (capped by the server). A full page carries a ``Link: <...>; rel="next"`` header
    whose ``after`` is the page's last id. Users get only their own."""
    if not user.is_admin:
        if owner is not None and owner != user.name:
            raise PermissionDeniedError(f"user {user.name!r} may list only their own workloads")
        owner = user.name
    cap = min(limit or limits.max_list, limits.max_list)
    records = store.page_workloads(owner=owner, states=state or None, after=after, limit=cap)
    if len(records) == cap:
        query = {"after": records[-1].id, "limit": cap, "owner": owner, "state": state or None}
        response.headers["Link"] = next_link("/v1/workloads", query)
    return [workload_json(r) for r in records]


@router.get("/{workload_id}", response_model=None, responses={200: _WORKLOAD})
async def get_workload(
    workload_id: WorkloadId, user: CurrentUser, scheduler: SchedulerDep, offload: OffloadDep
) -> Response:
    """One workload: state, placement, explanation and the submitted spec."""
    record = await offload.run(scheduler.get, workload_id)
    return json_response(workload_json(owned(record, user), with_spec=True))


@router.delete("/{workload_id}", response_model=None, responses={200: _WORKLOAD})
async def cancel(
    workload_id: WorkloadId, user: CurrentUser, scheduler: SchedulerDep, commits: CommitsDep
) -> Response:
    """Cancel a workload, releasing any capacity it holds."""
    # A cancel mostly waits for the store's write lock: on the waiting pool, so reads on the
    # small pool never queue behind a burst of cancels.
    record = await commits.run(_cancel, scheduler, workload_id, user)
    return json_response(workload_json(record))


def _cancel(scheduler: Scheduler, workload_id: int, user: User) -> WorkloadRecord:
    owned(scheduler.get(workload_id), user)  # 404 for another user's workload, before anything changes
    return scheduler.cancel(workload_id, actor=user.name, admin=user.is_admin)


@router.post("/{workload_id}/finish")
def finish(workload_id: WorkloadId, user: CurrentUser, scheduler: SchedulerDep) -> dict[str, Any]:
    """Report that a workload completed, releasing its capacity (its owner or an admin)."""
    owned(scheduler.get(workload_id), user)
    return workload_json(scheduler.finish(workload_id, actor=user.name, admin=user.is_admin))


@router.put("/{workload_id}/pods/{pod}/status")
def pod_status(
    workload_id: WorkloadId, pod: str, body: PodStatusBody, _: AdminUser, scheduler: SchedulerDep
) -> dict[str, Any]:
    """Report what one pod of an admitted gang is doing (Pending, Running, Failed, Terminating).
    A running pod marks the gang running; failed or ended pods feed node-failure detection."""
    record = scheduler.set_pod_status(workload_id, pod, body.status)
    statuses = scheduler.pod_statuses(workload_id)
    return {**workload_json(record), "pods": {name: str(status) for name, status in statuses.items()}}


def owned(record: WorkloadRecord, user: User) -> WorkloadRecord:
    """The record, when ``user`` may see it (its owner or an admin). Another user's workload is
    not found, exactly like a missing one, so ids cannot be probed."""
    if not user.is_admin and record.owner != user.name:
        raise NotFoundError("workload", str(record.id))
    return record
