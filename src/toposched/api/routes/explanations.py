"""Why a pending workload waits and what would place it, computed when asked (``api.explaining``)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from toposched.api.auth import CurrentUser
from toposched.api.deps import ExplanationsDep
from toposched.api.params import WorkloadId

router = APIRouter(prefix="/v1/workloads", tags=["workloads"])


@router.get("/{workload_id}/explanation")
async def explanation(
    workload_id: WorkloadId, user: CurrentUser, explanations: ExplanationsDep
) -> dict[str, Any]:
    """The failing group and level, the best candidate domains with their shortfall, the nodes
    left out and why, and suggestions each checked by placing it (the running workloads named
    ``workloads/<id>``, or ``another-user/<n>`` for workloads the caller may not see), within the
    service's time bound (``untried`` lists the kinds of suggestion it cut short). Kept until the
    cluster or the queue changes. 404 for an unknown workload (or another user's), 409 when it
    is not pending or places now, 429 (with Retry-After) while the caller's previous explanation
    still runs or the service runs as many as it allows."""
    return await explanations.explain(user, workload_id)
