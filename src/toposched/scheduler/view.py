"""One cycle's view of capacity: a snapshot per topology, from stored nodes, the external pods
and every reservation, kept in step as the cycle admits, replaces and evicts. Trees and
snapshots outlive the cycle (``kept``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from toposched.model import Node, Resources, RunningPod, Topology
from toposched.scheduler.kept import KeptSnapshot, SnapshotCache, TreeCache, excess, topology_key
from toposched.snapshot import Snapshot


class CycleView:
    """Snapshots are taken lazily, the first time a topology is needed in the cycle, over trees
    kept across cycles in ``trees`` and snapshots kept in ``snapshots``."""

    def __init__(
        self,
        nodes: Sequence[Node],
        external: Sequence[RunningPod],
        booked: Mapping[int, Mapping[str, Resources]],
        trees: TreeCache | None = None,
        snapshots: SnapshotCache | None = None,
    ) -> None:
        self.nodes = {node.name: node for node in nodes}
        self._node_list = tuple(nodes)
        self._external = tuple(external)
        self._booked: dict[int, dict[str, Resources]] = {w: dict(r) for w, r in booked.items()}
        self._snapshots: dict[str, KeptSnapshot] = {}
        self._trees = trees if trees is not None else TreeCache()
        self._cache = snapshots if snapshots is not None else SnapshotCache()
        self._cache.totals.sync(self._booked)
        self.changes = 0  # bookings charged or given back during the cycle (``shapes.Refusals``)

    def snapshot(self, topology: Topology) -> Snapshot:
        """The snapshot of ``topology`` with every current booking charged."""
        key = topology_key(topology)
        kept = self._snapshots.get(key)
        if kept is None:
            kept = self._cache.kept(key, self._trees.tree(topology, self._node_list), self._external)
            kept.sync(self._booked)
            self._snapshots[key] = kept
        return kept.snapshot

    def charge(self, workload: int, usage: Mapping[str, Resources]) -> None:
        """Book ``usage`` for a workload (replacing what it had) in every snapshot."""
        self._booked[workload] = dict(usage)
        self._cache.totals.charge(workload, self._booked[workload])
        for kept in self._snapshots.values():
            kept.charge(workload, self._booked[workload])
        self.changes += 1

    def overbooked(self) -> dict[str, str]:
        """Nodes whose bookings and external pods exceed what they have now (a node re-imported
        smaller), each with what is over: their gangs count as failed on them."""
        booked = self._cache.totals.per_node  # kept in step with ``_booked``
        # Nodes without bookings: what the external pods alone do to them (kept between cycles).
        excessive = self._cache.external_excess(self._external, self._node_list)
        over = {name: why for name, why in excessive.items() if name not in booked}
        external = self._cache.external_use(self._external)
        for name, mine in booked.items():
            node = self.nodes.get(name)
            if node is None:
                continue  # a deleted node fails for its gangs anyway
            why = excess(node, external.get(name, {}), mine)
            if why:
                over[name] = why
        return over

    def release(self, workload: int) -> None:
        """Give back everything a workload booked."""
        self._booked.pop(workload, None)
        self._cache.totals.release(workload)
        for kept in self._snapshots.values():
            kept.release(workload)
        self.changes += 1
