"""Why a pending workload waits and what would place it, computed when asked."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from toposched.api.auth import CurrentUser, User
from toposched.api.deps import OffloadDep, SchedulerDep
from toposched.api.params import WorkloadId
from toposched.api.verbs import owned
from toposched.emit.result import explanation_to_json
from toposched.model import Explanation
from toposched.scheduler import Scheduler

router = APIRouter(prefix="/v1/workloads", tags=["workloads"])


@router.get("/{workload_id}/explanation")
async def explanation(
    workload_id: WorkloadId, user: CurrentUser, scheduler: SchedulerDep, offload: OffloadDep
) -> dict[str, Any]:
    """The failing group and level, the best candidate domains with their shortfall, the nodes
    left out and why, and suggestions each checked by placing it (the running workloads named
    ``workloads/<id>``, or ``another-user/<n>`` for workloads the caller may not see). 404 for an
    unknown workload (or another user's), 409 when it is not pending or places now."""
    return explanation_to_json(await offload.run(_explain, scheduler, workload_id, user))


def _explain(scheduler: Scheduler, workload_id: int, user: User) -> Explanation:
    owned(scheduler.get(workload_id), user)  # 404 for another user's workload, like a missing one
    return scheduler.explain(workload_id, viewer=None if user.is_admin else user.name)
