"""OSMO pools (admin), and their topology keys, which any user may read to write specs."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Response

from toposched.api.auth import AdminUser, CurrentUser
from toposched.api.bodies import PoolBody, pool_json
from toposched.api.deps import StoreDep
from toposched.model import NotFoundError, Problem, SpecError

router = APIRouter(prefix="/v1/pools", tags=["pools"])


@router.get("")
def list_pools(_: AdminUser, store: StoreDep) -> list[dict[str, Any]]:
    return [pool_json(p) for p in store.list_pools()]


@router.get("/{name}")
def get_pool(name: str, _: AdminUser, store: StoreDep) -> dict[str, Any]:
    return pool_json(store.get_pool(name))


@router.put("/{name}")
def put_pool(name: str, body: PoolBody, _: AdminUser, store: StoreDep) -> dict[str, Any]:
    """Create or replace a pool. ``topology``, when given, must name a stored topology."""
    record = body.to_record(name)
    if record.topology:
        try:
            store.get_topology(record.topology)
        except NotFoundError:
            known = ", ".join(t.name for t in store.list_topologies()) or "none"
            raise SpecError(
                [Problem("topology", f"unknown topology {record.topology!r}", f"known topologies: {known}")]
            ) from None
    store.put_pool(record)
    return pool_json(record)


@router.delete("/{name}", status_code=204)
def delete_pool(name: str, _: AdminUser, store: StoreDep) -> Response:
    store.delete_pool(name)
    return Response(status_code=204)


@router.get("/{name}/topology-keys")
def topology_keys(name: str, _: CurrentUser, store: StoreDep) -> list[dict[str, Any]]:
    """The pool's topology keys, coarsest first, with their position (0 = coarsest)."""
    keys = pool_json(store.get_pool(name))["topology_keys"]
    return [{"key": k["key"], "label": k["label"], "order": i} for i, k in enumerate(keys)]
