"""FastAPI dependencies that hand routes the scheduler, the store, the limits, the offload pool,
the workload verbs, the explanations and the view cache of the app. They are ``async`` because none blocks:
FastAPI runs a sync dependency in its thread pool, one hop per dependency per request."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from toposched.api.explaining import Explanations
from toposched.api.limits import Limits
from toposched.api.offload import Offload
from toposched.api.verbs import WorkloadVerbs
from toposched.api.viewcache import ViewCache
from toposched.scheduler import Scheduler
from toposched.store import Store


async def get_scheduler(request: Request) -> Scheduler:
    scheduler: Scheduler = request.app.state.scheduler
    return scheduler


async def get_store(request: Request) -> Store:
    store: Store = request.app.state.store
    return store


async def get_limits(request: Request) -> Limits:
    limits: Limits = request.app.state.limits
    return limits


async def get_offload(request: Request) -> Offload:
    offload: Offload = request.app.state.offload
    return offload


async def get_view_cache(request: Request) -> ViewCache:
    cache: ViewCache = request.app.state.view_cache
    return cache


async def get_explanations(request: Request) -> Explanations:
    explanations: Explanations = request.app.state.explanations
    return explanations


async def get_verbs(request: Request) -> WorkloadVerbs:
    verbs: WorkloadVerbs = request.app.state.verbs
    return verbs


SchedulerDep = Annotated[Scheduler, Depends(get_scheduler)]
StoreDep = Annotated[Store, Depends(get_store)]
LimitsDep = Annotated[Limits, Depends(get_limits)]
OffloadDep = Annotated[Offload, Depends(get_offload)]
ViewCacheDep = Annotated[ViewCache, Depends(get_view_cache)]
VerbsDep = Annotated[WorkloadVerbs, Depends(get_verbs)]
ExplanationsDep = Annotated[Explanations, Depends(get_explanations)]
