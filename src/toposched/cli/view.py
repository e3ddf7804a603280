"""What the table view shows, computed from the cluster and a placement (no scheduling logic).

The tree holds only the domains that received pods: zone → block → rack → node for the sample
topology. Every domain and node carries the free amount of one display resource (GPUs when the
gang asks for them) before and after the placement.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

from toposched.model import (
    PODS,
    Cluster,
    Gang,
    Node,
    Placement,
    PodPlacement,
    PodSpec,
    Resources,
    Topology,
)

_PLAIN = ("cpu", "memory", "pods", "ephemeral-storage")


@dataclass(slots=True)
class NodeView:
    """One node that received pods."""

    name: str
    before: int  # free amount of the display resource before the placement
    after: int
    pods: list[PodPlacement] = field(default_factory=list)


@dataclass(slots=True)
class DomainView:
    """One topology domain that received pods; ``values`` is its path from the top level."""

    level: str
    values: tuple[str, ...]
    before: int
    after: int
    pods: int = 0
    children: list[DomainView] = field(default_factory=list)
    nodes: list[NodeView] = field(default_factory=list)

    @property
    def value(self) -> str:
        return self.values[-1]


@dataclass(slots=True)
class PlacementView:
    """The placed part of the cluster as a tree, plus the counts the summary line needs."""

    resource: str
    levels: tuple[str, ...]  # the tree's domain levels (hostname is shown as nodes instead)
    roots: list[DomainView]
    unplaced_nodes: list[NodeView]  # nodes of pods whose domain path is incomplete
    domains_per_level: dict[str, int]
    nodes_used: int
    pods: int


def display_resource(gang: Gang) -> str:
    """The resource worth showing: a GPU-like one when requested, else the first extended one, else cpu."""
    requested = sorted({name for pod in gang.root.all_pods() for name in pod.requests})
    for name in requested:
        if "gpu" in name.lower():
            return name
    extended = [name for name in requested if name not in _PLAIN]
    if extended:
        return extended[0]
    return "cpu" if "cpu" in requested else (requested[0] if requested else "pods")


def free_amounts(cluster: Cluster, resource: str) -> dict[str, int]:
    """Free amount of ``resource`` per node: allocatable minus running pods; 0 on unusable nodes."""
    used: dict[str, int] = defaultdict(int)
    for pod in cluster.pods:
        used[pod.node] += _amount(pod.requests, resource)
    return {
        node.name: max(0, node.allocatable[resource] - used[node.name]) if node.schedulable else 0
        for node in cluster.nodes
    }


def build_view(cluster: Cluster, topology: Topology, gang: Gang, placement: Placement) -> PlacementView:
    """Group the placed pods by domain and node, with free capacity before and after."""
    resource = display_resource(gang)
    levels = topology.levels[:-1] if topology.hostname_is_lowest else topology.levels
    free = free_amounts(cluster, resource)
    nodes = {node.name: node for node in cluster.nodes}
    requests = _pod_requests(gang)

    # Free capacity of every domain (all its nodes, not only the chosen ones); a node without every
    # level label is outside the topology, even when it shares a coarser label such as the zone.
    domain_free: dict[tuple[str, ...], int] = defaultdict(int)
    for node in cluster.nodes:
        if any(level not in node.labels for level in topology.levels):
            continue
        for path in _prefixes(_path(node, levels)):
            domain_free[path] += free[node.name]

    node_views: dict[str, NodeView] = {}
    domains: dict[tuple[str, ...], DomainView] = {}
    roots: list[DomainView] = []
    unplaced: list[NodeView] = []
    for pod in placement.pods:
        amount = requests.get((pod.group, pod.index), 0)
        host = nodes.get(pod.node) if pod.node is not None else None
        path = _path(host, levels) if host is not None else tuple(pod.domain[: len(levels)])
        chain = [
            _domain(domains, roots, levels, path[: depth + 1], domain_free) for depth in range(len(path))
        ]
        for domain in chain:
            domain.pods += 1
            domain.after -= amount
        key = pod.node if pod.node is not None else f"({' / '.join(path) or '?'})"
        view = node_views.get(key)
        if view is None:
            before = free.get(key, 0)
            view = node_views[key] = NodeView(key, before, before)
            if chain and len(chain) == len(levels):
                chain[-1].nodes.append(view)
            else:
                unplaced.append(view)
        view.after -= amount
        view.pods.append(pod)

    counts = {level: sum(1 for values in domains if len(values) == i + 1) for i, level in enumerate(levels)}
    return PlacementView(resource, levels, roots, unplaced, counts, len(node_views), len(placement.pods))


def _domain(
    domains: dict[tuple[str, ...], DomainView],
    roots: list[DomainView],
    levels: tuple[str, ...],
    values: tuple[str, ...],
    domain_free: dict[tuple[str, ...], int],
) -> DomainView:
    view = domains.get(values)
    if view is None:
        before = domain_free.get(values, 0)
        view = domains[values] = DomainView(levels[len(values) - 1], values, before, before)
        (domains[values[:-1]].children if len(values) > 1 else roots).append(view)
    return view


def _path(node: Node, levels: tuple[str, ...]) -> tuple[str, ...]:
    """The node's label values along ``levels``, cut at the first missing label."""
    out: list[str] = []
    for level in levels:
        value = node.labels.get(level)
        if value is None:
            break
        out.append(value)
    return tuple(out)


def _prefixes(path: tuple[str, ...]) -> Iterable[tuple[str, ...]]:
    return (path[: i + 1] for i in range(len(path)))


def _pod_requests(gang: Gang) -> dict[tuple[str, int], int]:
    """Requests of the display resource per (leaf group, pod index)."""
    resource = display_resource(gang)
    out: dict[tuple[str, int], int] = {}
    for leaf in gang.leaves():
        pod: PodSpec
        for pod in leaf.pods:
            out[(leaf.name, pod.index)] = _amount(pod.requests, resource)
    return out


def _amount(requests: Resources, resource: str) -> int:
    """What one pod takes of ``resource``; every pod takes one ``pods`` slot."""
    return 1 if resource == PODS else requests[resource]
