"""What the loop keeps from one cycle to the next: the static topology tree per topology and
node set, every booking and its sums per node, the snapshot per topology with the bookings
charged on it, and the nodes booked beyond what they have.

A cycle reuses a kept snapshot while its tree and the external pods are the same, and only
charges or gives back the bookings that changed since (``view.refresh`` reads them from the
store), instead of rebuilding the arrays from every node and booking.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping, Sequence

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
        if cached is not None and (cached[0] is members or cached[0] == members):
            return cached[1]
        tree = TopologyTree.build(topology, members)
        self.builds += 1
        self._trees[key] = (members, tree)
        return tree


Usage = Mapping[str, Resources]


class BookingSync(ABC):
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


class SnapshotWithBookings(BookingSync):
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


class BookingTotals(BookingSync):
    """Every booking summed per node, kept in step with the bookings like ``SnapshotWithBookings``, so a
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
    """The bookings of every workload holding capacity, as of the store's generation last read,
    and the snapshot of each topology with them charged, kept from one cycle to the next: a
    change of bookings is charged on every kept snapshot at once, so a cycle only applies what
    changed. Only one cycle uses it at a time (``Scheduler.cycle`` holds the cycle lock)."""

    def __init__(self) -> None:
        self._kept: dict[str, SnapshotWithBookings] = {}
        self.builds = 0  # how many snapshots were built from scratch (tests read it)
        self._external: tuple[tuple[RunningPod, ...], dict[str, dict[str, int]]] = ((), {})
        self.totals = BookingTotals()
        self.overbooked = Overbooked()
        self.generation: int | None = None  # of the store's bookings (None: read them all next)
        self.touched: set[int] = set()  # charged or given back by a cycle, not read from the store yet
        self.held: dict[str, Usage] = {}  # capacity a cycle keeps out of every snapshot, by key

    @property
    def booked(self) -> Mapping[int, Usage]:
        """Every booking, by workload (callers must not change it)."""
        return self.totals.charged

    def charge(self, workload: int, usage: Usage) -> None:
        """Book ``usage`` for ``workload`` (replacing what it had) everywhere; unchanged
        bookings cost one comparison."""
        if self.totals.charged.get(workload) == usage:
            return
        self.overbooked.touch(self.totals.charged.get(workload, {}))
        self.overbooked.touch(usage)
        self.totals.charge(workload, usage)
        for kept in self._kept.values():
            kept.charge(workload, usage)

    def release(self, workload: int) -> None:
        """Give back what ``workload`` booked, everywhere."""
        old = self.totals.charged.get(workload)
        if old is None:
            return
        self.overbooked.touch(old)
        self.totals.release(workload)
        for kept in self._kept.values():
            kept.release(workload)

    def hold(self, key: str, usage: Usage) -> None:
        """Keep ``usage`` out of every snapshot (replacing what ``key`` held) without booking it:
        a reservation, for one cycle (``reservations``)."""
        self.held[key] = usage
        for kept in self._kept.values():
            kept.snapshot.add_usage(key, usage)

    def unhold(self, key: str) -> None:
        """Give back what ``hold`` kept out under ``key``."""
        if self.held.pop(key, None) is not None:
            for kept in self._kept.values():
                kept.snapshot.remove_usage(key)

    def sync(self, booked: Mapping[int, Usage]) -> None:
        """Make the bookings ``booked`` (all of them, as a full read gives them)."""
        for workload in [w for w in self.totals.charged if w not in booked]:
            self.release(workload)
        for workload, usage in booked.items():
            self.charge(workload, usage)

    def external_use(self, external: tuple[RunningPod, ...]) -> Mapping[str, Mapping[str, int]]:
        """What the external pods use per node (the ``pods`` slot included), summed once for as
        long as they stay the same. Callers must not change it."""
        kept = self._external[0]
        if kept is not external and kept != external:
            used: dict[str, dict[str, int]] = {}
            for pod in external:
                into = used.setdefault(pod.node, {})
                for resource, amount in per_slot_requests(pod.requests).items():
                    into[resource] = into.get(resource, 0) + amount
            self._external = (external, used)
        return self._external[1]

    def kept(self, key: str, tree: TopologyTree, external: tuple[RunningPod, ...]) -> SnapshotWithBookings:
        """The kept snapshot of topology ``key`` when it has this tree and these external pods,
        else a new one with every booking charged."""
        kept = self._kept.get(key)
        if (
            kept is None
            or kept.tree is not tree
            or (kept.external is not external and kept.external != external)
        ):
            kept = SnapshotWithBookings(tree, external)
            kept.sync(self.totals.charged)
            for held, usage in self.held.items():
                kept.snapshot.add_usage(held, usage)
            self.builds += 1
            self._kept[key] = kept
        return kept

    def over(self, nodes: Mapping[str, Node], external: tuple[RunningPod, ...]) -> Mapping[str, str]:
        """Nodes whose bookings and external pods exceed what they have now (see ``Overbooked``)."""
        return self.overbooked.current(nodes, external, self.external_use(external), self.totals.per_node)


class Overbooked:
    """Nodes booked beyond what they have now (a node re-imported smaller), each with what is
    over, kept in step: a node is looked at again only when it, its bookings or the external
    pods changed (``touch``), so a cycle costs what changed."""

    def __init__(self) -> None:
        self.over: dict[str, str] = {}
        self._dirty: set[str] = set()
        self._external: tuple[RunningPod, ...] | None = None  # None: every node to be looked at

    def touch(self, names: Iterable[str]) -> None:
        """``names`` changed (their value, or what is booked on them)."""
        self._dirty.update(names)

    def current(
        self,
        nodes: Mapping[str, Node],
        external: tuple[RunningPod, ...],
        use: Mapping[str, Mapping[str, int]],
        booked: Mapping[str, Mapping[str, int]],
    ) -> Mapping[str, str]:
        """The overbooked nodes among ``nodes`` (callers must not change the answer)."""
        if self._external is not external:
            names: Iterable[str] = {*nodes, *self.over}
            self._external = external
        else:
            names = self._dirty
        for name in names:
            node = nodes.get(name)
            why = "" if node is None else excess(node, use.get(name, {}), booked.get(name, {}))
            if why:
                self.over[name] = why
            else:
                self.over.pop(name, None)
        self._dirty = set()
        return self.over


def excess(node: Node, external: Mapping[str, int], booked: Mapping[str, int]) -> str:
    """What the external pods and the bookings on ``node`` use beyond its allocatable ("" for
    nothing), e.g. ``nvidia.com/gpu 9 booked > 8``."""
    return ", ".join(
        f"{resource} {amount} booked > {node.allocatable[resource]}"
        for resource in sorted(external.keys() | booked.keys())
        if (amount := external.get(resource, 0) + booked.get(resource, 0)) > node.allocatable[resource]
    )
