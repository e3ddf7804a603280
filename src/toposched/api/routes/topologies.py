"""Topologies: read (any user); create, replace and delete (admin; deletion guarded while referenced)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Response

from toposched.api.auth import AdminUser, CurrentUser
from toposched.api.bodies import TopologyBody, topology_json
from toposched.api.deps import SchedulerDep, StoreDep

router = APIRouter(prefix="/v1/topologies", tags=["topologies"])


@router.get("")
def list_topologies(_: CurrentUser, store: StoreDep) -> list[dict[str, Any]]:
    return [topology_json(t) for t in store.list_topologies()]


@router.get("/{name}")
def get_topology(name: str, _: CurrentUser, store: StoreDep) -> dict[str, Any]:
    return topology_json(store.get_topology(name))


@router.put("/{name}")
def put_topology(name: str, body: TopologyBody, _: AdminUser, scheduler: SchedulerDep) -> dict[str, Any]:
    """Create or replace a topology (levels coarsest first). Aliases may always change; the
    levels not while admitted or running workloads use the topology (409)."""
    topology = body.to_topology(name)
    scheduler.put_topology(topology)
    return topology_json(topology)


@router.delete("/{name}", status_code=204)
def delete_topology(name: str, _: AdminUser, scheduler: SchedulerDep) -> Response:
    """Delete a topology; 409 naming the pending, admitted or running workloads and the pools
    that still reference it (refused, never deferred)."""
    scheduler.delete_topology(name)
    return Response(status_code=204)
