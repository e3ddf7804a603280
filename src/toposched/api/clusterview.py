"""The cluster as the web page draws it: topology domains (zones → blocks → racks) down to nodes,
and which workloads have pods on each node. Pure functions over stored values."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from toposched.api.auth import User
from toposched.model import HOSTNAME, Node, Resources, Topology
from toposched.store import WorkloadRecord

UNLABELLED = "(unlabelled)"


def build_view(
    nodes: Sequence[Node],
    topologies: Sequence[Topology],
    chosen: str | None,
    records: Iterable[WorkloadRecord],
    reserved: Mapping[str, Resources],
    viewer: User,
) -> dict[str, Any]:
    """The JSON document of ``GET /v1/cluster/view``.

    Workloads of other users are shown to a non-admin viewer without name or id, so the page
    tells them a node is busy without revealing whose job it is.
    """
    topology = _pick(topologies, chosen)
    levels = [lvl for lvl in topology.levels if lvl != HOSTNAME] if topology else []
    placed = _workloads_by_node(records, viewer)
    node_views = {
        n.name: {
            "name": n.name,
            "ready": n.ready,
            "unschedulable": n.unschedulable,
            "taints": [str(t) for t in n.taints],
            "allocatable": n.allocatable.pretty(),
            "reserved": reserved[n.name].pretty() if n.name in reserved else {},
            "workloads": placed.get(n.name, []),
        }
        for n in nodes
    }
    return {
        "topology": topology.name if topology else None,
        "topologies": [t.name for t in topologies],
        "levels": levels,
        "domains": _tree(nodes, levels),
        "nodes": node_views,
    }


def _pick(topologies: Sequence[Topology], chosen: str | None) -> Topology | None:
    for topology in topologies:
        if topology.name == chosen:
            return topology
    return topologies[0] if topologies and chosen is None else None


def _tree(nodes: Sequence[Node], levels: Sequence[str]) -> list[dict[str, Any]]:
    """Nested domains, one per distinct label value per level; nodes hang off the finest domain."""
    if not levels:
        return [{"level": "", "value": "all nodes", "children": [], "nodes": sorted(n.name for n in nodes)}]
    groups: dict[str, list[Node]] = {}
    for node in nodes:
        groups.setdefault(node.labels.get(levels[0], UNLABELLED), []).append(node)
    out: list[dict[str, Any]] = []
    for value in sorted(groups):
        members = groups[value]
        if len(levels) == 1:
            out.append(
                {"level": levels[0], "value": value, "children": [], "nodes": sorted(n.name for n in members)}
            )
        else:
            out.append(
                {"level": levels[0], "value": value, "children": _tree(members, levels[1:]), "nodes": []}
            )
    return out


def _workloads_by_node(records: Iterable[WorkloadRecord], viewer: User) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    for record in records:
        if not record.state.holds_capacity or not isinstance(record.placement, dict):
            continue
        counts: dict[str, int] = {}
        for pod in record.placement.get("pods") or []:
            node = pod.get("node") if isinstance(pod, dict) else None
            if isinstance(node, str):
                counts[node] = counts.get(node, 0) + 1
        visible = viewer.is_admin or record.owner == viewer.name
        for node, pods in counts.items():
            out.setdefault(node, []).append(
                {
                    "id": record.id if visible else None,
                    "name": record.name if visible else "(another user)",
                    "owner": record.owner if visible else None,
                    "state": str(record.state),
                    "pods": pods,
                }
            )
    return out
