"""FastAPI dependencies that hand routes the scheduler, the store and the limits of the app."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from toposched.api.limits import Limits
from toposched.scheduler import Scheduler
from toposched.store import Store


def get_scheduler(request: Request) -> Scheduler:
    scheduler: Scheduler = request.app.state.scheduler
    return scheduler


def get_store(request: Request) -> Store:
    store: Store = request.app.state.store
    return store


def get_limits(request: Request) -> Limits:
    limits: Limits = request.app.state.limits
    return limits


SchedulerDep = Annotated[Scheduler, Depends(get_scheduler)]
StoreDep = Annotated[Store, Depends(get_store)]
LimitsDep = Annotated[Limits, Depends(get_limits)]
