"""One cycle's view of capacity: a snapshot per topology, from stored nodes, the external pods
and every reservation, kept in step as the cycle admits, replaces and evicts."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from toposched.model import Node, Resources, RunningPod, Topology
from toposched.scheduler.state import TreeCache, topology_key
from toposched.snapshot import Snapshot, per_slot_requests


class CycleView:
    """Snapshots are built lazily, the first time a topology is needed in the cycle, over trees
    kept across cycles in ``trees``."""

    def __init__(
        self,
        nodes: Sequence[Node],
        external: Sequence[RunningPod],
        booked: Mapping[int, Mapping[str, Resources]],
        trees: TreeCache | None = None,
    ) -> None:
        self.nodes = {node.name: node for node in nodes}
        self._node_list = tuple(nodes)
        self._external = tuple(external)
        self._booked: dict[int, dict[str, Resources]] = {w: dict(r) for w, r in booked.items()}
        self._snapshots: dict[str, Snapshot] = {}
        self._trees = trees if trees is not None else TreeCache()

    def snapshot(self, topology: Topology) -> Snapshot:
        """The snapshot of ``topology`` with every current booking charged."""
        key = topology_key(topology)
        snap = self._snapshots.get(key)
        if snap is None:
            snap = Snapshot.build(self._trees.tree(topology, self._node_list), self._external)
            for workload, usage in self._booked.items():
                snap.add_usage(str(workload), usage)
            self._snapshots[key] = snap
        return snap

    def charge(self, workload: int, usage: Mapping[str, Resources]) -> None:
        """Book ``usage`` for a workload (replacing what it had) in every snapshot."""
        self._booked[workload] = dict(usage)
        for snap in self._snapshots.values():
            snap.add_usage(str(workload), usage)

    def overbooked(self) -> dict[str, str]:
        """Nodes whose bookings and external pods exceed what they have now (a node re-imported
        smaller), each with what is over: their gangs count as failed on them."""
        used: dict[str, dict[str, int]] = {}
        for pod in self._external:
            into = used.setdefault(pod.node, {})
            for resource, amount in per_slot_requests(pod.requests).items():
                into[resource] = into.get(resource, 0) + amount
        for usage in self._booked.values():
            for name, resources in usage.items():
                into = used.setdefault(name, {})
                for resource, amount in resources.items():
                    into[resource] = into.get(resource, 0) + amount
        over: dict[str, str] = {}
        for name, amounts in used.items():
            node = self.nodes.get(name)
            if node is None:
                continue  # a deleted node fails for its gangs anyway
            excess = [
                f"{resource} {amount} booked > {node.allocatable[resource]}"
                for resource, amount in sorted(amounts.items())
                if amount > node.allocatable[resource]
            ]
            if excess:
                over[name] = ", ".join(excess)
        return over

    def release(self, workload: int) -> None:
        """Give back everything a workload booked."""
        self._booked.pop(workload, None)
        for snap in self._snapshots.values():
            snap.remove_usage(str(workload))
