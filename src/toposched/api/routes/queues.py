"""Scheduling queues: any user may read them with their usage (what they use, are guaranteed,
borrow, their fair share and their gangs); admins create, replace and delete them."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body, Path, Response

from toposched.api.auth import AdminUser, CurrentUser
from toposched.api.deps import SchedulerDep, StoreDep
from toposched.model import NotFoundError, Problem, Resources, SchedulingQueue, SpecError, format_quantity
from toposched.scheduler import QueueStatus, Scheduler

router = APIRouter(prefix="/v1/queues", tags=["queues"])

QueueName = Annotated[str, Path(min_length=1, max_length=63, description="A queue name")]
QueueSpec = Annotated[
    dict[str, Any],
    Body(
        description="name, parent, guaranteed, limit, weight, preemption, defaultRunSeconds, localQueues",
        examples=[{"name": "team-a", "parent": "org", "guaranteed": {"nvidia.com/gpu": 64}}],
    ),
]


@router.get("")
def list_queues(_: CurrentUser, scheduler: SchedulerDep) -> list[dict[str, Any]]:
    """Every queue (``default`` included) with its usage, sorted by name."""
    return [status_json(s) for s in scheduler.queues()]


@router.get("/{name}")
def get_queue(name: QueueName, _: CurrentUser, scheduler: SchedulerDep) -> dict[str, Any]:
    """One queue with its usage."""
    return _status_of(scheduler, name)


@router.put("")
def put_queue(body: QueueSpec, _: AdminUser, scheduler: SchedulerDep, store: StoreDep) -> dict[str, Any]:
    """Create or replace the queue the body names (422 with every problem: a bad field, an
    unknown parent, a cycle, a LocalQueue another queue lists)."""
    queue = SchedulingQueue.parse(body)
    store.put_queue(queue)
    scheduler.wake()
    return _status_of(scheduler, queue.name)


@router.put("/{name}")
def put_named_queue(
    name: QueueName, body: QueueSpec, _: AdminUser, scheduler: SchedulerDep, store: StoreDep
) -> dict[str, Any]:
    """Create or replace queue ``name`` (the body's ``name``, when given, must be the same)."""
    if body.get("name", name) != name:
        raise SpecError([Problem("queue.name", f"is not {name!r}, the queue of the path", "leave it out")])
    return put_queue({**body, "name": name}, _, scheduler, store)


@router.delete("/{name}", status_code=204)
def delete_queue(name: QueueName, _: AdminUser, scheduler: SchedulerDep, store: StoreDep) -> Response:
    """Delete a queue (its gangs go to ``default``); 422 while another queue is its child."""
    store.delete_queue(name)
    scheduler.wake()
    return Response(status_code=204)


def _status_of(scheduler: Scheduler, name: str) -> dict[str, Any]:
    for status in scheduler.queues():
        if status.queue.name == name:
            return status_json(status)
    raise NotFoundError("queue", name, "list them with GET /v1/queues")


def status_json(status: QueueStatus) -> dict[str, Any]:
    """A queue's spec and, beside it, what it uses now."""
    return {
        **status.queue.to_json(),
        "usage": _amounts(status.usage),
        "quota": _amounts(status.quota),
        "borrowed": _amounts(status.borrowed),
        "share": round(status.share, 6),
        "pending": status.pending,
        "admitted": status.admitted,
    }


def _amounts(resources: Resources) -> dict[str, str]:
    return {name: format_quantity(amount, name) for name, amount in sorted(resources.items())}
