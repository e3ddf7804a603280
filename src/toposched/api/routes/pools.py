"""OSMO pools (admin; validated by OSMO's pool rules, deletion guarded while workloads use
them), and their topology keys, which any user may read to write specs."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Response

from toposched.api.auth import AdminUser, CurrentUser
from toposched.api.bodies import PoolBody, pool_json
from toposched.api.deps import SchedulerDep, StoreDep

router = APIRouter(prefix="/v1/pools", tags=["pools"])


@router.get("")
def list_pools(_: AdminUser, store: StoreDep) -> list[dict[str, Any]]:
    return [pool_json(p) for p in store.list_pools()]


@router.get("/{name}")
def get_pool(name: str, _: AdminUser, store: StoreDep) -> dict[str, Any]:
    return pool_json(store.get_pool(name))


@router.put("/{name}")
def put_pool(name: str, body: PoolBody, _: AdminUser, scheduler: SchedulerDep) -> dict[str, Any]:
    """Create or replace a pool. ``topology``, when given, must name a stored topology; the keys
    cannot change while the pool's workloads hold capacity (409)."""
    record = scheduler.put_pool(
        name,
        topology=body.topology,
        topology_keys=[k.model_dump() for k in body.topology_keys],
        description=body.description,
        backend=body.backend,
    )
    return pool_json(record)


@router.delete("/{name}", status_code=204)
def delete_pool(name: str, _: AdminUser, scheduler: SchedulerDep) -> Response:
    """Delete a pool; 409 while a pending, admitted or running workload uses it."""
    scheduler.delete_pool(name)
    return Response(status_code=204)


@router.get("/{name}/topology-keys")
def topology_keys(name: str, _: CurrentUser, scheduler: SchedulerDep) -> list[dict[str, Any]]:
    """The pool's topology keys ``[{key, label, order}]``, coarsest first (order 0 = coarsest)."""
    return scheduler.pool_keys(name)
