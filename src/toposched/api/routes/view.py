"""The cluster view: JSON for scripts and the page, the page itself at ``/``, and health."""

from __future__ import annotations

import logging
from typing import Any

from fastapi import APIRouter
from fastapi.responses import HTMLResponse, JSONResponse

from toposched.api.auth import CurrentUser, Role, User
from toposched.api.clusterview import build_view
from toposched.api.deps import SchedulerDep, StoreDep
from toposched.api.page import render_page
from toposched.model import NotFoundError, StoreError
from toposched.store import ACTIVE_STATES

log = logging.getLogger("toposched.api")
router = APIRouter(tags=["view"])

# The page skeleton shows only the topology tree and node names; workloads need a token.
_ANONYMOUS = User("", Role.USER)


@router.get("/v1/cluster/view")
def cluster_view(
    user: CurrentUser, store: StoreDep, topology: str | None = None
) -> dict[str, Any]:
    """Domains (coarsest level first) down to nodes, and the workloads with pods on each node."""
    topologies = store.list_topologies()
    if topology is not None and topology not in {t.name for t in topologies}:
        raise NotFoundError("topology", topology)
    records = store.list_workloads(states=ACTIVE_STATES)
    return build_view(store.get_nodes(), topologies, topology, records, store.reserved_by_node(), user)


@router.get("/", response_class=HTMLResponse, include_in_schema=False)
def page(store: StoreDep, topology: str | None = None) -> HTMLResponse:
    topologies = store.list_topologies()
    chosen = topology if topology in {t.name for t in topologies} else None
    view = build_view(store.get_nodes(), topologies, chosen, (), store.reserved_by_node(), _ANONYMOUS)
    return HTMLResponse(render_page(view))


@router.get("/v1/health", tags=["health"])
def health(store: StoreDep, scheduler: SchedulerDep) -> JSONResponse:
    """Store and loop health: 503 when the store cannot be read (a cheap read); the loop's last
    cycle and last cycle error (clock times), and how many workloads are marked broken."""
    loop = scheduler.health()
    try:
        store.list_topologies()
        store_status = "ok"
    except StoreError as exc:
        log.error("health check: %s", exc)
        store_status = "unavailable"
    body = {
        "status": "ok" if store_status == "ok" else "unavailable",
        "store": store_status,
        "loop": {
            "lastCycleAt": loop.last_cycle_at,
            "lastError": loop.last_error,
            "lastErrorAt": loop.last_error_at,
            "broken": len(loop.broken),
        },
    }
    return JSONResponse(body, status_code=200 if store_status == "ok" else 503)
