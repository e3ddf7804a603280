"""How full each domain of a topology is, in one resource: what the lint's level figures and
``topology show`` read.

Every node carrying all level labels counts, schedulable or not, so a domain of cordoned nodes
shows as unavailable rather than vanishing. Running pods count wherever they run, whoever placed
them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from toposched.model import Node, RunningPod, Topology
from toposched.model.node import level_value

Path = tuple[str, ...]


@dataclass(slots=True)
class DomainUsage:
    """One domain: its member nodes and its ``resource`` split into used, unavailable and free."""

    nodes: int = 0
    capacity: int = 0
    used: int = 0
    unavailable: int = 0  # on NotReady or cordoned nodes, not used by pods

    @property
    def free(self) -> int:
        return self.capacity - self.used - self.unavailable


def members_of(topology: Topology, nodes: Iterable[Node]) -> list[Node]:
    """The nodes carrying every level label of ``topology``."""
    return [n for n in nodes if all(level_value(n, key) is not None for key in topology.levels)]


def occupancy(
    topology: Topology, members: Sequence[Node], pods: Iterable[RunningPod], resource: str
) -> list[dict[Path, DomainUsage]]:
    """Per level (coarsest first), every domain's usage, keyed by its path of level values."""
    used: Counter[str] = Counter()
    for pod in pods:
        used[pod.node] += pod.requests[resource]
    levels: list[dict[Path, DomainUsage]] = [{} for _ in topology.levels]
    for node in members:
        capacity = node.allocatable[resource]
        taken = min(capacity, used[node.name])
        idle = 0 if node.schedulable else capacity - taken
        values = tuple(str(level_value(node, key)) for key in topology.levels)
        for level, domains in enumerate(levels):
            usage = domains.setdefault(values[: level + 1], DomainUsage())
            usage.nodes += 1
            usage.capacity += capacity
            usage.used += taken
            usage.unavailable += idle
    return levels


def shown_resources(nodes: Iterable[Node]) -> list[str]:
    """The resources worth showing: extended ones (``vendor/name``, GPUs first), else cpu."""
    names = {name for node in nodes for name in node.allocatable if "/" in name}
    return sorted(names, key=lambda name: ("gpu" not in name, name)) or ["cpu"]
