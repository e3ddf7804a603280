"""The cluster view: compact JSON for the page and scripts, a node's detail for the page's
panel, the page itself at ``/`` (static files), and health."""

from __future__ import annotations

import logging
from typing import Any

from fastapi import APIRouter, Request, Response
from fastapi.responses import JSONResponse

from toposched.api.auth import CurrentUser, MaybeUser, User
from toposched.api.clusterview import build_view, node_detail
from toposched.api.deps import OffloadDep, SchedulerDep, StoreDep, ViewCacheDep
from toposched.api.offload import json_bytes
from toposched.api.page import MEDIA_TYPES, asset
from toposched.api.viewcache import CachedView, ViewCache
from toposched.model import NotFoundError, StoreError
from toposched.scheduler import Scheduler
from toposched.store import ACTIVE_STATES, Store

log = logging.getLogger("toposched.api")
router = APIRouter(tags=["view"])

_VIEW = {
    "description": "Domains, nodes with their booked and foreign usage, and workloads (see api.clusterview)"
}


@router.get(
    "/v1/cluster/view", response_model=None, responses={200: _VIEW, 304: {"description": "Unchanged"}}
)
async def cluster_view(
    request: Request,
    user: MaybeUser,
    store: StoreDep,
    scheduler: SchedulerDep,
    offload: OffloadDep,
    cache: ViewCacheDep,
    topology: str | None = None,
) -> Response:
    """The floor view of one topology (the first without ``topology``). Without a token: the
    nodes and their usage but no workloads. Carries an ``ETag``: a poll sending it back in
    ``If-None-Match`` gets an empty 304 while nothing changed."""
    # Built, encoded and hashed on the offload pool: at 10k nodes that is CPU time
    # (bench/cluster_view.py) the event loop would otherwise spend away from every other connection.
    view = await offload.run(_view, store, scheduler, cache, topology, user)
    headers = {"ETag": view.etag, "Cache-Control": "no-cache"}
    if request.headers.get("if-none-match") == view.etag:
        return Response(status_code=304, headers=headers)
    response = Response(view.body, media_type="application/json")
    response.headers.update(headers)
    return response


def _view(
    store: Store, scheduler: Scheduler, cache: ViewCache, topology: str | None, user: User | None
) -> CachedView:
    # The version is read first: a change landing while the view is built makes the next poll
    # rebuild it, never keeps a stale view.
    version = store.version()
    cached = cache.get((topology, user), version)
    if cached is not None:
        return cached
    topologies = store.list_topologies()
    if topology is not None and topology not in {t.name for t in topologies}:
        raise NotFoundError("topology", topology)
    records = store.list_workloads(states=ACTIVE_STATES) if user is not None else []
    reserved = store.reserved_by_node()
    view = build_view(
        store.get_nodes(), topologies, topology, records, reserved, scheduler.external_pods(), user
    )
    built = CachedView.of(json_bytes(view))
    cache.put((topology, user), version, built)
    return built


@router.get("/v1/cluster/view/nodes/{name}")
def node_panel(name: str, user: CurrentUser, store: StoreDep, scheduler: SchedulerDep) -> dict[str, Any]:
    """One node for the page's panel: its facts, bookings, and pods (toposched's and foreign)."""
    node = store.get_node(name)
    records = store.list_workloads(states=ACTIVE_STATES)
    return node_detail(node, records, store.reserved_by_node(), scheduler.external_pods(), user)


@router.get("/", include_in_schema=False)
def page() -> Response:
    return _file("index.html")


@router.get("/static/{name}", include_in_schema=False)
def static_file(name: str) -> Response:
    return _file(name)


def _file(name: str) -> Response:
    return Response(asset(name), media_type=MEDIA_TYPES[name], headers={"Cache-Control": "no-cache"})


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
