"""The cluster as the web page draws it, as compact JSON: topology domains as a flat list, nodes
as rows of numbers, and the workloads with the nodes their pods are on. Pure functions over
stored values; a 10k-node view is a few hundred kilobytes and a few tens of milliseconds.

``GET /v1/cluster/view`` answers::

    topology, topologies, levels      the chosen topology, every topology, its non-host levels
    resource                          the resource counted (GPUs when any node has them, else cpu)
    domains: [[level, value, parent]] coarsest first; ``level`` indexes ``levels``, root parent -1
    nodes: [[name, domain, capacity, booked, foreign, flags]]
                                      ``domain``: the node's finest domain (-1 without levels);
                                      ``booked``: by toposched's workloads; ``foreign``: by pods
                                      it did not place; ``flags``: NOT_READY | CORDONED | TAINTED
    workloads: [{id, name, owner, state, reason, nodes: [[node, pods]]}]
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from toposched.api.auth import User
from toposched.emit.result import pod_nodes
from toposched.model import HOSTNAME, Node, Resources, RunningPod, Topology
from toposched.store import WorkloadRecord, WorkloadState

UNLABELLED = "(unlabelled)"
GPU = "nvidia.com/gpu"
NOT_READY, CORDONED, TAINTED = 1, 2, 4
HIDDEN_NAME = "(another user)"
_DIGITS = re.compile(r"(\d+)")


def build_view(
    nodes: Sequence[Node],
    topologies: Sequence[Topology],
    chosen: str | None,
    records: Iterable[WorkloadRecord],
    reserved: Mapping[str, Resources],
    external: Iterable[RunningPod],
    viewer: User | None,
) -> dict[str, Any]:
    """The JSON document of ``GET /v1/cluster/view``.

    An anonymous ``viewer`` (None) gets no workloads. A non-admin gets their own workloads and
    the others' admitted or running ones without name or id, so the page shows a node is busy
    without revealing whose job it is.
    """
    topology = _pick(topologies, chosen)
    levels = [lvl for lvl in topology.levels if lvl != HOSTNAME] if topology else []
    resource = GPU if any(GPU in n.allocatable for n in nodes) else "cpu"
    domains, leaf_of = _domains(nodes, levels)
    order = sorted(range(len(nodes)), key=lambda i: (leaf_of[i], natural(nodes[i].name)))
    foreign: dict[str, int] = {}
    for pod in external:
        foreign[pod.node] = foreign.get(pod.node, 0) + pod.requests[resource]
    rows: list[list[Any]] = []
    for i in order:
        node = nodes[i]
        booked = reserved.get(node.name)
        flags = (NOT_READY if not node.ready else 0) | (CORDONED if node.unschedulable else 0)
        flags |= TAINTED if node.taints else 0
        rows.append(
            [
                node.name,
                leaf_of[i],
                node.allocatable[resource],
                booked[resource] if booked is not None else 0,
                foreign.get(node.name, 0),
                flags,
            ]
        )
    index = {str(row[0]): position for position, row in enumerate(rows)}
    return {
        "topology": topology.name if topology else None,
        "topologies": [t.name for t in topologies],
        "levels": levels,
        "resource": resource,
        "domains": domains,
        "nodes": rows,
        "workloads": _workloads(records, index, viewer) if viewer is not None else [],
    }


def natural(text: str) -> tuple[tuple[int, int | str], ...]:
    """A sort key that orders numbered names as people do: ``r2`` before ``r10``."""
    return tuple((0, int(part)) if part.isdigit() else (1, part) for part in _DIGITS.split(text) if part)


def _pick(topologies: Sequence[Topology], chosen: str | None) -> Topology | None:
    for topology in topologies:
        if topology.name == chosen:
            return topology
    return topologies[0] if topologies and chosen is None else None


def _domains(nodes: Sequence[Node], levels: Sequence[str]) -> tuple[list[list[Any]], list[int]]:
    """Every domain as ``[level, value, parent]`` in path order, and each node's finest domain."""
    if not levels:
        return [], [-1] * len(nodes)
    paths = [tuple(n.labels.get(level, UNLABELLED) for level in levels) for n in nodes]
    prefixes = sorted(
        {path[: depth + 1] for path in set(paths) for depth in range(len(levels))},
        key=lambda prefix: tuple(natural(value) for value in prefix),
    )
    position = {prefix: i for i, prefix in enumerate(prefixes)}
    domains = [
        [len(prefix) - 1, prefix[-1], position[prefix[:-1]] if len(prefix) > 1 else -1] for prefix in prefixes
    ]
    return domains, [position[path] for path in paths]


def _workloads(
    records: Iterable[WorkloadRecord], index: Mapping[str, int], viewer: User
) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for record in records:
        visible = viewer.is_admin or record.owner == viewer.name
        if not visible and not record.state.holds_capacity:
            continue  # another user's queue is none of this viewer's business
        counts: dict[int, int] = {}
        if record.state.holds_capacity:
            for node in _pods_of(record).values():
                if node is not None and node in index:
                    counts[index[node]] = counts.get(index[node], 0) + 1
        explanation = record.explanation if isinstance(record.explanation, Mapping) else {}
        pending = record.state is WorkloadState.PENDING
        out.append(
            {
                "id": record.id if visible else None,
                "name": record.name if visible else HIDDEN_NAME,
                "owner": record.owner if visible else None,
                "state": str(record.state),
                "reason": str(explanation.get("reason", "")) if visible and pending else "",
                "nodes": sorted([node, pods] for node, pods in counts.items()),
            }
        )
    return out


def node_detail(
    node: Node,
    records: Iterable[WorkloadRecord],
    reserved: Mapping[str, Resources],
    external: Iterable[RunningPod],
    viewer: User,
) -> dict[str, Any]:
    """What the page's node panel shows: the node's facts, what is booked on it, and its pods:
    those of toposched's workloads (named as in the view) and those it did not place."""
    managed = []
    for record in records:
        if not record.state.holds_capacity:
            continue
        pods = sorted(pod for pod, where in _pods_of(record).items() if where == node.name)
        if pods:
            visible = viewer.is_admin or record.owner == viewer.name
            managed.append(
                {
                    "id": record.id if visible else None,
                    "name": record.name if visible else HIDDEN_NAME,
                    "state": str(record.state),
                    "pods": pods if visible else [],
                    "count": len(pods),
                }
            )
    foreign = [
        {"namespace": p.namespace, "name": p.name, "owner": p.owner, "requests": p.requests.pretty()}
        for p in external
        if p.node == node.name
    ]
    booked = reserved.get(node.name)
    return {
        "name": node.name,
        "labels": dict(node.labels),
        "allocatable": node.allocatable.pretty(),
        "booked": booked.pretty() if booked is not None else {},
        "ready": node.ready,
        "unschedulable": node.unschedulable,
        "taints": [str(t) for t in node.taints],
        "workloads": managed,
        "foreignPods": foreign,
    }


def _pods_of(record: WorkloadRecord) -> dict[str, str | None]:
    """Pod -> node of a stored placement; a damaged one shows no pods (the loop reports it)."""
    try:
        return pod_nodes(record.placement)
    except (KeyError, TypeError, AttributeError):
        return {}
