"""The event log. Users see the events of their own workloads; admins see everything."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from toposched.api.auth import CurrentUser
from toposched.api.deps import LimitsDep, SchedulerDep, StoreDep
from toposched.api.params import Limit, Since, WorkloadFilter
from toposched.api.routes.workloads import owned
from toposched.store import EventRecord

router = APIRouter(prefix="/v1/events", tags=["events"])


@router.get("")
def list_events(
    user: CurrentUser,
    store: StoreDep,
    scheduler: SchedulerDep,
    limits: LimitsDep,
    since: Since = 0,
    workload: WorkloadFilter = None,
    limit: Limit = None,
) -> list[dict[str, Any]]:
    """Events with ``seq > since`` in order, at most ``limit``; poll with the last seq seen."""
    cap = min(limit or limits.max_list, limits.max_list)
    if workload is not None:
        owned(scheduler.get(workload), user)
        return [event_json(e) for e in store.list_events(since, workload=workload, limit=cap)]
    if user.is_admin:
        return [event_json(e) for e in store.list_events(since, limit=cap)]
    mine = {r.id for r in scheduler.list(owner=user.name)}
    events = [e for e in store.list_events(since) if e.workload in mine]
    return [event_json(e) for e in events[:cap]]


def event_json(event: EventRecord) -> dict[str, Any]:
    return {
        "seq": event.seq,
        "type": event.type,
        "message": event.message,
        "time": event.time,
        "workload": event.workload,
        "data": event.data,
    }
