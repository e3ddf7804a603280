"""The nodes and topologies of ``MemoryStore``."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from toposched.model import Node, NotFoundError, Resources, Taint, Topology
from toposched.store import rules
from toposched.store.memory_changes import ChangeLog
from toposched.store.memory_records import MemoryRecords
from toposched.store.records import PoolRecord


class MemoryNodes(MemoryRecords):
    """The node and topology methods of the ``Store`` protocol, over ``MemoryStore``'s state."""

    _nodes: dict[str, Node]
    _topologies: dict[str, Topology]
    _pools: dict[str, PoolRecord]
    _node_log: ChangeLog[str]

    # -- nodes ---------------------------------------------------------------------------------
    def put_nodes(self, nodes: Iterable[Node], *, replace: bool = False) -> None:
        """Insert or overwrite nodes by name; with ``replace`` also delete every node not listed."""
        batch = {node.name: node for node in nodes}
        with self._changing():
            gone = [name for name in self._nodes if name not in batch] if replace else []
            for name in gone:
                del self._nodes[name]
            self._nodes.update(batch)
            for name in (*gone, *batch):
                self._node_log.touch(name, len(self._nodes))

    def get_nodes(self) -> list[Node]:
        """Every node, sorted by name."""
        with self._lock:
            return [self._nodes[name] for name in sorted(self._nodes)]

    def get_node(self, name: str) -> Node:
        """One node by name."""
        with self._lock:
            if name not in self._nodes:
                raise NotFoundError("node", name)
            return self._nodes[name]

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
        with self._changing():
            node = rules.updated_node(self.get_node(name), ready, unschedulable, taints, labels, allocatable)
            self._nodes[name] = node
            self._node_log.touch(name, len(self._nodes))
            return node

    def delete_node(self, name: str) -> None:
        """Forget a node. Its reservations stay with their workloads until released."""
        with self._changing():
            if self._nodes.pop(name, None) is None:
                raise NotFoundError("node", name)
            self._node_log.touch(name, len(self._nodes))

    # -- topologies ----------------------------------------------------------------------------
    def put_topology(self, topology: Topology) -> None:
        """Insert or overwrite a topology by name."""
        with self._changing():
            self._topologies[topology.name] = topology

    def get_topology(self, name: str) -> Topology:
        """One topology by name."""
        with self._lock:
            if name not in self._topologies:
                raise NotFoundError(
                    "topology", name, f"known topologies: {rules.known_names(self._topologies)}"
                )
            return self._topologies[name]

    def list_topologies(self) -> list[Topology]:
        """Every topology, sorted by name."""
        with self._lock:
            return [self._topologies[name] for name in sorted(self._topologies)]

    def delete_topology(self, name: str) -> None:
        """Delete a topology; ConflictError while a live workload or a pool references it."""
        with self._changing():
            self.get_topology(name)
            users = [w.id for w in self._live() if w.topology == name]
            pools = sorted(p.name for p in self._pools.values() if p.topology == name)
            rules.check_topology_unused(name, users, pools)
            del self._topologies[name]
