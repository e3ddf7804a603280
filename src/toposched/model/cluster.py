"""A cluster as toposched reads it: nodes, the pods already running, and Topology objects."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from toposched.model.errors import ClusterSpecError, NotFoundError, Problem
from toposched.model.node import Node, RunningPod
from toposched.model.topology import Topology


@dataclass(frozen=True, slots=True)
class Cluster:
    nodes: tuple[Node, ...]
    pods: tuple[RunningPod, ...] = ()
    topologies: tuple[Topology, ...] = ()

    @classmethod
    def create(
        cls,
        nodes: tuple[Node, ...] | list[Node],
        pods: tuple[RunningPod, ...] | list[RunningPod] = (),
        topologies: tuple[Topology, ...] | list[Topology] = (),
    ) -> Cluster:
        """Build and check: node, pod and topology names are unique."""
        problems = duplicate_names(nodes, pods, topologies)
        if problems:
            raise ClusterSpecError(problems)
        return cls(tuple(nodes), tuple(pods), tuple(topologies))

    def topology(self, name: str | None = None) -> Topology:
        """The named topology; without a name, the only one the cluster has."""
        if name is None:
            if len(self.topologies) == 1:
                return self.topologies[0]
            known = ", ".join(t.name for t in self.topologies) or "none"
            raise NotFoundError(
                "topology",
                "(default)",
                f"the cluster defines {len(self.topologies)} topologies ({known}); name one with --topology",
            )
        for topology in self.topologies:
            if topology.name == name:
                return topology
        known = ", ".join(t.name for t in self.topologies) or "none"
        raise NotFoundError("topology", name, f"known topologies: {known}")

    def with_topology(self, topology: Topology) -> Cluster:
        others = tuple(t for t in self.topologies if t.name != topology.name)
        return Cluster(self.nodes, self.pods, (*others, topology))


def duplicate_names(
    nodes: Sequence[Node], pods: Sequence[RunningPod], topologies: Sequence[Topology]
) -> list[Problem]:
    """One problem per node, pod (namespace/name) or topology name given more than once."""
    problems: list[Problem] = []
    for name, count in Counter(n.name for n in nodes).items():
        if count > 1:
            problems.append(
                Problem(
                    f"nodes[{name}]", f"node {name!r} appears {count} times", "each node name must be unique"
                )
            )
    for key, count in Counter(f"{p.namespace}/{p.name}" for p in pods).items():
        if count > 1:
            problems.append(Problem(f"pods[{key}]", f"pod {key!r} appears {count} times", "keep one copy"))
    for name, count in Counter(t.name for t in topologies).items():
        if count > 1:
            problems.append(
                Problem(
                    f"topologies[{name}]",
                    f"topology {name!r} is defined {count} times",
                    "keep one definition",
                )
            )
    return problems
