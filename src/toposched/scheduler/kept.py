"""What the loop keeps from one cycle to the next: the static topology tree per topology and
node set, and the snapshot per topology with the bookings charged on it.

A cycle reuses a kept snapshot while its tree and the external pods are the same, and only
charges or gives back the bookings that changed since, instead of rebuilding the arrays from
every node and booking.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence

from toposched.model import Node, Resources, RunningPod, Topology
from toposched.snapshot import Snapshot, per_slot_requests
from toposched.topology import TopologyTree


def topology_key(topology: Topology) -> str:
    """Name plus levels (and kube-scheduler's every-node view): a topology edited under the same
    name gets a new key."""
    return f"{topology.name}\0{'|'.join(topology.levels)}" + ("\0every-node" if topology.every_node else "")


class TreeCache:
    """The static topology tree per topology, rebuilt only when the node set changes (any field
    of any node: readiness and cordons decide which nodes the tree holds)."""

    def __init__(self) -> None:
        self._trees: dict[str, tuple[tuple[Node, ...], TopologyTree]] = {}
        self.builds = 0  # how many trees were built (tests read it)

    def tree(self, topology: Topology, nodes: Sequence[Node]) -> TopologyTree:
        key, members = topology_key(topology), tuple(nodes)
        cached = self._trees.get(key)
        if cached is not None and cached[0] == members:
            return cached[1]
        tree = TopologyTree.build(topology, members)
        self.builds += 1
        self._trees[key] = (members, tree)
        return tree


Usage = Mapping[str, Resources]


class KeptBookings(ABC):
    """Bookings by workload kept in step with the store's: subclasses say how to charge and
    release one; ``sync`` applies only what changed."""

    charged: dict[int, Usage]

    @abstractmethod
    def charge(self, workload: int, usage: Usage) -> None:
        """Book ``usage`` for ``workload``, replacing what it had."""

    @abstractmethod
    def release(self, workload: int) -> None:
        """Give back what ``workload`` had booked."""

    def sync(self, booked: Mapping[int, Usage]) -> None:
        """Make the charged bookings ``booked``: give back the ones gone, charge the changed."""
        for workload in [w for w in self.charged if w not in booked]:
            self.release(workload)
        for workload, usage in booked.items():
            if self.charged.get(workload) != usage:
                self.charge(workload, usage)


class KeptSnapshot(KeptBookings):
    """A snapshot and the bookings charged on it, by workload: always exactly what it holds."""

    def __init__(self, tree: TopologyTree, external: tuple[RunningPod, ...]) -> None:
        self.tree = tree
        self.external = external
        self.snapshot = Snapshot.build(tree, external)
        self.charged: dict[int, Usage] = {}

    def charge(self, workload: int, usage: Usage) -> None:
        """Book ``usage`` for ``workload``, replacing what it had."""
        self.charged.pop(workload, None)  # until the snapshot holds the new usage
        self.snapshot.add_usage(str(workload), usage)
        self.charged[workload] = usage

    def release(self, workload: int) -> None:
        self.charged.pop(workload, None)
        self.snapshot.remove_usage(str(workload))


class KeptTotals(KeptBookings):
    """Every booking summed per node, kept in step with the bookings like ``KeptSnapshot``, so a
    cycle adds up only the bookings that changed since the last one."""

    def __init__(self) -> None:
        self.charged: dict[int, Usage] = {}
        self.per_node: dict[str, dict[str, int]] = {}

    def charge(self, workload: int, usage: Usage) -> None:
        """Book ``usage`` for ``workload``, replacing what it had."""
        self.release(workload)
        self._add(usage, 1)
        self.charged[workload] = usage

    def release(self, workload: int) -> None:
        old = self.charged.pop(workload, None)
        if old is not None:
            self._add(old, -1)

    def _add(self, usage: Usage, sign: int) -> None:
        for name, resources in usage.items():
            into = self.per_node.setdefault(name, {})
            for resource, amount in resources.items():
                left = into.get(resource, 0) + sign * amount
                if left:
                    into[resource] = left
                else:
                    into.pop(resource, None)
            if not into:
                del self.per_node[name]


class SnapshotCache:
    """The snapshot of each topology, kept from one cycle to the next. Only one cycle uses it at
    a time (``Scheduler.cycle`` holds the cycle lock)."""

    def __init__(self) -> None:
        self._kept: dict[str, KeptSnapshot] = {}
        self.builds = 0  # how many snapshots were built from scratch (tests read it)
        self._external: tuple[tuple[RunningPod, ...], dict[str, dict[str, int]]] = ((), {})
        self._excess: tuple[tuple[RunningPod, ...], tuple[Node, ...], dict[str, str]] = ((), (), {})
        self.totals = KeptTotals()

    def external_use(self, external: tuple[RunningPod, ...]) -> Mapping[str, Mapping[str, int]]:
        """What the external pods use per node (the ``pods`` slot included), summed once for as
        long as they stay the same. Callers must not change it."""
        if self._external[0] != external:
            used: dict[str, dict[str, int]] = {}
            for pod in external:
                into = used.setdefault(pod.node, {})
                for resource, amount in per_slot_requests(pod.requests).items():
                    into[resource] = into.get(resource, 0) + amount
            self._external = (external, used)
        return self._external[1]

    def kept(self, key: str, tree: TopologyTree, external: tuple[RunningPod, ...]) -> KeptSnapshot:
        """The kept snapshot of topology ``key`` when it has this tree and these external pods,
        else a new one (its bookings are synced by the caller)."""
        kept = self._kept.get(key)
        if kept is None or kept.tree is not tree or kept.external != external:
            kept = KeptSnapshot(tree, external)
            self.builds += 1
            self._kept[key] = kept
        return kept

    def external_excess(self, external: tuple[RunningPod, ...], nodes: tuple[Node, ...]) -> Mapping[str, str]:
        """Nodes that the external pods alone use beyond what they have, each with what is over
        (see ``excess``); computed once for as long as the pods and the nodes stay the same."""
        if self._excess[0] != external or self._excess[1] != nodes:
            used = self.external_use(external)
            found: dict[str, str] = {}
            for node in nodes:
                over = excess(node, used.get(node.name, {}), {})
                if over:
                    found[node.name] = over
            self._excess = (external, nodes, found)
        return self._excess[2]


def excess(node: Node, external: Mapping[str, int], booked: Mapping[str, int]) -> str:
    """What the external pods and the bookings on ``node`` use beyond its allocatable ("" for
    nothing), e.g. ``nvidia.com/gpu 9 booked > 8``."""
    return ", ".join(
        f"{resource} {amount} booked > {node.allocatable[resource]}"
        for resource in sorted(external.keys() | booked.keys())
        if (amount := external.get(resource, 0) + booked.get(resource, 0)) > node.allocatable[resource]
    )
