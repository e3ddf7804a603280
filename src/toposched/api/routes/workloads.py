"""Workloads: submit, read, list, cancel and finish (users only their own; admins all), and pod
status reports (admin: the node agent's role)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query, Response

from toposched.api.auth import AdminUser, CurrentUser
from toposched.api.bodies import PodStatusBody, SubmitBody, workload_json
from toposched.api.deps import LimitsDep, SchedulerDep, StoreDep, VerbsDep
from toposched.api.offload import json_response
from toposched.api.params import After, Limit, WorkloadId, next_link
from toposched.api.verbs import owned
from toposched.api.yaml_submit import YAML_TYPES
from toposched.model import PermissionDeniedError
from toposched.store import WorkloadState

router = APIRouter(prefix="/v1/workloads", tags=["workloads"])
_QUEUED = (WorkloadState.PENDING, WorkloadState.ADMITTED, WorkloadState.RUNNING)  # they have a queue

# Submit, read and cancel are also served by ``api.hot`` (plain ASGI handlers in front of this
# router) for well-formed requests; the declarations here describe them in /openapi.json and
# answer every other request. Both run the same ``WorkloadVerbs``.
_WORKLOAD = {"description": "The workload (see GET /v1/workloads/{id})"}
# The job file itself as the body (api.yaml_submit turns it into the JSON envelope first).
_JOB_FILE = {"schema": {"type": "string", "description": "The workload spec, YAML or JSON text."}}
_QUERY = [
    {"name": name, "in": "query", "required": False, "schema": {"type": kind}, "description": text}
    for name, kind, text in (
        ("priority", "integer", "With a job file as the body: higher runs first (default 0)."),
        ("topology", "string", "With a job file as the body: the topology's name; default: the spec's."),
        ("kind", "string", "With a job file as the body: front end hint, e.g. 'kueue' or 'kai'."),
    )
]
_SUBMIT_DOC = {
    "requestBody": {"content": dict.fromkeys(sorted(YAML_TYPES), _JOB_FILE)},
    "parameters": _QUERY,
}


@router.post("", status_code=201, response_model=None, responses={201: _WORKLOAD}, openapi_extra=_SUBMIT_DOC)
async def submit(body: SubmitBody, user: CurrentUser, verbs: VerbsDep) -> Response:
    """Store a workload as pending. The answer comes after the store commit, so 201 means durable.
    The body is ``{"spec": "<YAML or JSON text>", ...}`` as ``application/json``, or the job file
    itself as ``application/yaml`` (``application/x-yaml``, ``text/yaml``) with ``priority``,
    ``topology`` and ``kind`` in the query string."""
    return json_response(await verbs.submit(user.name, body.fields()), 201)


@router.get("")
def list_workloads(
    user: CurrentUser,
    store: StoreDep,
    scheduler: SchedulerDep,
    limits: LimitsDep,
    response: Response,
    owner: str | None = None,
    state: Annotated[list[WorkloadState] | None, Query()] = None,
    after: After = 0,
    limit: Limit = None,
) -> list[dict[str, Any]]:
    """Workloads in submission (id) order, a page at a time: ids above ``after``, at most
    ``limit`` (capped by the server). A full page carries a ``Link: <...>; rel="next"`` header
    whose ``after`` is the page's last id. Users get only their own. A pending workload's
    ``position`` is its place in the admission order among every user's pending workloads (1 is
    tried first; priority rising with the wait, then arrival; with several queues, fair share
    interleaves them); a pending, admitted or running one's ``queue`` is its scheduling queue."""
    if not user.is_admin:
        if owner is not None and owner != user.name:
            raise PermissionDeniedError(f"user {user.name!r} may list only their own workloads")
        owner = user.name
    cap = min(limit or limits.max_list, limits.max_list)
    records = store.page_workloads(owner=owner, states=state or None, after=after, limit=cap)
    if len(records) == cap:
        query = {"after": records[-1].id, "limit": cap, "owner": owner, "state": state or None}
        response.headers["Link"] = next_link("/v1/workloads", query)
    pending = [r.id for r in records if r.state is WorkloadState.PENDING]
    order = scheduler.admission_order(store.queue((WorkloadState.PENDING,))) if pending else []
    positions = {entry.id: place for place, entry in enumerate(order, start=1)}
    queues = scheduler.queue_names(r.id for r in records if r.state in _QUEUED)
    return [workload_json(r, position=positions.get(r.id), queue=queues.get(r.id)) for r in records]


@router.get("/{workload_id}", response_model=None, responses={200: _WORKLOAD})
async def get_workload(workload_id: WorkloadId, user: CurrentUser, verbs: VerbsDep) -> Response:
    """One workload: state, placement, explanation and the submitted spec."""
    return json_response(await verbs.read(user, workload_id))


@router.delete("/{workload_id}", response_model=None, responses={200: _WORKLOAD})
async def cancel(workload_id: WorkloadId, user: CurrentUser, verbs: VerbsDep) -> Response:
    """Cancel a workload, releasing any capacity it holds."""
    return json_response(await verbs.cancel(user, workload_id))


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
