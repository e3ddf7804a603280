"""The event log. Users see the events of their own workloads; admins see everything."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Response

from toposched.api.auth import CurrentUser
from toposched.api.deps import LimitsDep, SchedulerDep, StoreDep
from toposched.api.params import Limit, Since, WorkloadFilter, next_link
from toposched.api.verbs import owned
from toposched.store import EventRecord

router = APIRouter(prefix="/v1/events", tags=["events"])


@router.get("")
def list_events(
    user: CurrentUser,
    store: StoreDep,
    scheduler: SchedulerDep,
    limits: LimitsDep,
    response: Response,
    since: Since = 0,
    workload: WorkloadFilter = None,
    limit: Limit = None,
) -> list[dict[str, Any]]:
    """Events with ``seq > since`` in order, at most ``limit``; poll with the last seq seen. A
    full page carries a ``Link: <...>; rel="next"`` header for the next one."""
    cap = min(limit or limits.max_list, limits.max_list)
    if workload is not None:
        owned(scheduler.get(workload), user)
    owner = None if user.is_admin or workload is not None else user.name
    events = store.list_events(since, workload=workload, limit=cap, owner=owner)
    if len(events) == cap:
        query = {"since": events[-1].seq, "limit": cap, "workload": workload}
        response.headers["Link"] = next_link("/v1/events", query)
    return [event_json(e) for e in events]


def event_json(event: EventRecord) -> dict[str, Any]:
    return {
        "seq": event.seq,
        "type": event.type,
        "message": event.message,
        "time": event.time,
        "workload": event.workload,
        "data": event.data,
    }
