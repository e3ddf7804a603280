"""The part of the ``Store`` protocol that holds the cluster: nodes and topologies."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Protocol

from toposched.model import Node, Resources, Taint, Topology


class NodeStore(Protocol):
    """Nodes by name, and the topologies over them."""

    def put_nodes(self, nodes: Iterable[Node], *, replace: bool = False) -> None:
        """Insert or overwrite nodes by name; with ``replace`` also delete every node not listed."""
        ...

    def get_nodes(self) -> list[Node]:
        """Every node, sorted by name."""
        ...

    def get_node(self, name: str) -> Node: ...

    def update_node(
        self,
        name: str,
        *,
        ready: bool | None = None,
        unschedulable: bool | None = None,
        taints: tuple[Taint, ...] | None = None,
        labels: Mapping[str, str] | None = None,
        allocatable: Resources | None = None,
    ) -> Node:
        """Change the given fields of one node; returns the stored node."""
        ...

    def delete_node(self, name: str) -> None:
        """Forget a node. Its reservations stay with their workloads until released."""
        ...

    def put_topology(self, topology: Topology) -> None: ...

    def get_topology(self, name: str) -> Topology: ...

    def list_topologies(self) -> list[Topology]:
        """Every topology, sorted by name."""
        ...

    def delete_topology(self, name: str) -> None:
        """Delete a topology; ConflictError while a live workload or a pool references it."""
        ...
