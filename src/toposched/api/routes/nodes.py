"""Nodes: list (any user); import a kubectl dump, change readiness, taints and cordon, delete (admin)."""

from __future__ import annotations

import dataclasses
from typing import Any

from fastapi import APIRouter, Request, Response
from starlette.concurrency import run_in_threadpool

from toposched.api.auth import AdminUser, CurrentUser
from toposched.api.bodies import NodePatch, node_json
from toposched.api.deps import OffloadDep, SchedulerDep, StoreDep
from toposched.api.offload import json_response
from toposched.intake.cluster import load_cluster_report
from toposched.model import Problem, SpecError
from toposched.store import Store

router = APIRouter(prefix="/v1/nodes", tags=["nodes"])


@router.get("", response_model=None, responses={200: {"description": "Every node with its booked capacity"}})
async def list_nodes(_: CurrentUser, store: StoreDep, offload: OffloadDep) -> Response:
    """Every node with its booked capacity."""
    return json_response(await offload.run(_nodes_json, store))


def _nodes_json(store: Store) -> list[dict[str, Any]]:
    reserved = store.reserved_by_node()
    out = []
    for node in store.get_nodes():
        body = node_json(node)
        body["reserved"] = reserved[node.name].pretty() if node.name in reserved else {}
        out.append(body)
    return out


@router.get("/{name}")
def get_node(name: str, _: CurrentUser, store: StoreDep) -> dict[str, Any]:
    return node_json(store.get_node(name))


@router.post(
    "/import",
    openapi_extra={
        "requestBody": {"content": {"application/yaml": {"schema": {"type": "string"}}}, "required": True}
    },
)
async def import_nodes(
    request: Request, _: AdminUser, scheduler: SchedulerDep, replace: bool = False
) -> dict[str, Any]:
    """Import nodes (and Topology objects, running pods) from ``kubectl get ... -o yaml`` output.

    Merges per node: the running pods of the nodes in the dump replace those nodes' earlier
    ones, other nodes keep theirs, so a cluster can be imported in chunks. ``replace=true``
    makes the dump the whole cluster: the answer lists the nodes and pods that removed
    (``removed_nodes``, ``removed_pods``). ``overbooked`` lists nodes left with less capacity
    than is booked on them; their gangs are replaced or evicted like those of a failed node."""
    raw = await request.body()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise SpecError(
            [Problem("body", "is not UTF-8 text", "send the YAML or JSON dump as text")]
        ) from None
    if not text.strip():
        raise SpecError([Problem("body", "is empty", "send a kubectl dump of Nodes (YAML or JSON)")])
    cluster, warnings = await run_in_threadpool(load_cluster_report, text, source="cluster")
    report = await run_in_threadpool(scheduler.import_cluster, cluster, replace=replace, warnings=warnings)
    return _report_json(report)


@router.patch("/{name}")
def patch_node(name: str, patch: NodePatch, _: AdminUser, scheduler: SchedulerDep) -> dict[str, Any]:
    """Change readiness, cordon or taints; omitted fields stay as they are."""
    node = None
    if patch.ready is not None:
        node = scheduler.set_node_ready(name, patch.ready)
    if patch.unschedulable is not None:
        node = scheduler.cordon(name, patch.unschedulable)
    if patch.taints is not None:
        node = scheduler.set_node_taints(name, [t.to_taint() for t in patch.taints])
    if node is None:
        raise SpecError([Problem("body", "changes nothing", "set ready, unschedulable or taints")])
    return node_json(node)


@router.delete("/{name}", status_code=204)
def delete_node(name: str, _: AdminUser, scheduler: SchedulerDep) -> Response:
    scheduler.delete_node(name)
    return Response(status_code=204)


def _report_json(report: object) -> dict[str, Any]:
    if dataclasses.is_dataclass(report) and not isinstance(report, type):
        return {k: _plain(v) for k, v in dataclasses.asdict(report).items()}
    return {"report": str(report)}


def _plain(value: object) -> object:
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if value is None or isinstance(value, str | int | float | bool):
        return value
    return str(value)
