"""Defragmentation advice for admins: which workloads to move so whole domains become free."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query

from toposched.api.auth import AdminUser
from toposched.api.deps import OffloadDep, SchedulerDep
from toposched.emit.result import defrag_to_json

router = APIRouter(prefix="/v1/defrag", tags=["defrag"])


@router.get("")
async def defrag(
    _: AdminUser,
    scheduler: SchedulerDep,
    offload: OffloadDep,
    level: Annotated[str, Query(max_length=317, description="node label, alias or short name (rack)")],
    count: Annotated[int, Query(ge=1, le=10_000)] = 1,
    topology: Annotated[str | None, Query(max_length=253)] = None,
) -> dict[str, Any]:
    """The fewest workload moves that free ``count`` whole domains of ``level``: the service's
    own workloads move whole (placed again by their spec), foreign pods move one by one, grouped
    by owner. ``complete`` false and a ``reason`` when fewer can be freed. Admins only."""
    plan = await offload.run(scheduler.defrag, level, count, topology)
    return defrag_to_json(plan)
