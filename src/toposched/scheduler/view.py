"""One cycle's view of capacity: the stored nodes, a snapshot per topology with every booking
charged, and where the pods of each gang holding capacity are, kept in step as the cycle admits,
replaces and evicts.

Everything in it is kept between cycles (``kept``, ``known``) and brought up to date at the
start of each cycle from what the store says changed since the last one (``refresh``): a cycle
in which nothing changed reads no node and no booking, whatever the size of the cluster.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence

from toposched.model import Node, NotFoundError, Resources, RunningPod, Topology
from toposched.scheduler.kept import SnapshotCache, TreeCache, topology_key
from toposched.scheduler.known import HoldingIndex, KnownNodes
from toposched.scheduler.running import Held
from toposched.scheduler.state import State
from toposched.snapshot import Snapshot
from toposched.store import NodeChanges, Store


class CycleView:
    """Snapshots are taken lazily, the first time a topology is needed in the cycle, over trees
    kept across cycles in ``trees`` and bookings and snapshots kept in ``snapshots``."""

    def __init__(
        self,
        nodes: KnownNodes,
        external: tuple[RunningPod, ...],
        snapshots: SnapshotCache,
        holding: HoldingIndex,
        trees: TreeCache,
    ) -> None:
        self._known = nodes
        self.nodes: Mapping[str, Node] = nodes.by_name
        self._external = external
        self._cache = snapshots
        self.holding = holding
        self._trees = trees
        self.changes = 0  # bookings charged or given back during the cycle (``shapes.Refusals``)

    @classmethod
    def of(
        cls,
        nodes: Sequence[Node],
        external: Sequence[RunningPod],
        booked: Mapping[int, Mapping[str, Resources]],
        trees: TreeCache | None = None,
        snapshots: SnapshotCache | None = None,
    ) -> CycleView:
        """A view of these nodes, external pods and bookings, read whole (an import's report)."""
        known = KnownNodes()
        known.apply(NodeChanges(0, tuple(nodes), (), True))
        cache = snapshots if snapshots is not None else SnapshotCache()
        cache.sync({w: dict(usage) for w, usage in booked.items()})
        cache.overbooked.touch(known.by_name)  # every node is looked at: they are new to it
        return cls(known, tuple(external), cache, HoldingIndex(), trees if trees is not None else TreeCache())

    @property
    def booked(self) -> Mapping[int, Mapping[str, Resources]]:
        """Every booking by workload (callers must not change it)."""
        return self._cache.booked

    def snapshot(self, topology: Topology) -> Snapshot:
        """The snapshot of ``topology`` with every current booking charged."""
        key = topology_key(topology)
        tree = self._trees.tree(topology, self._known.members)
        return self._cache.kept(key, tree, self._external).snapshot

    def charge(self, workload: int, usage: Mapping[str, Resources], held: Held | None = None) -> None:
        """Book ``usage`` for a workload (replacing what it had) in every snapshot; ``held``: its
        facts, for one the cycle admits (``running``)."""
        self._cache.charge(workload, dict(usage))
        self._cache.touched.add(workload)
        self.holding.booked(workload, usage, self.nodes.__contains__, held)
        self.changes += 1

    def release(self, workload: int) -> None:
        """Give back everything a workload booked."""
        self._cache.release(workload)
        self._cache.touched.add(workload)
        self.holding.drop(workload)
        self.changes += 1

    def hold(self, key: str, usage: Mapping[str, Resources]) -> None:
        """Keep ``usage`` out of every snapshot of the cycle without booking it (a reservation's
        nodes); ``unhold`` gives it back, before the cycle ends."""
        self._cache.hold(key, usage)
        self.changes += 1

    def unhold(self, key: str) -> None:
        """Give back what ``hold`` kept out under ``key`` (nothing when it holds nothing)."""
        if key in self._cache.held:
            self._cache.unhold(key)
            self.changes += 1

    def overbooked(self) -> Mapping[str, str]:
        """Nodes whose bookings and external pods exceed what they have now (a node re-imported
        smaller), each with what is over: their gangs count as failed on them."""
        return self._cache.over(self.nodes, self._external)

    def to_check(self, stopped: Iterable[int]) -> list[int]:
        """The gangs holding capacity that may have a failed node, in arrival order: those with
        pods on a node that is deleted, not ready, tainted ``NoExecute`` or overbooked; those
        of ``stopped`` (with a pod known not to be running) on a cordoned or ``NoSchedule``
        node, the only ones such a node can fail; and those whose placement cannot be read."""
        closed = self._known.closed
        idle = [w for w in stopped if any(name in closed for name in self.holding.nodes_of(w))]
        return self.holding.to_check(self._known.suspect | self.overbooked().keys(), idle)


def refresh(state: State) -> CycleView:
    """Bring what the loop keeps up to date with the store, reading only what changed since the
    last cycle (also what another process wrote), and return the cycle's view. Changed nodes are
    observed by the tracker now (their NotReady and taint clocks start). Bookings the last cycle
    charged or gave back that the store does not report (a write that failed) are read again,
    one by one. Call it under the state's lock."""
    store, nodes, snapshots, holding = state.store, state.nodes, state.snapshots, state.holding
    changed, removed = nodes.apply(store.node_changes(nodes.generation))
    now = state.clock.now()
    for node in changed:
        state.tracker.observe_node(node, now)
    for name in removed:
        state.tracker.observe(name, None, (), now)
    names = [node.name for node in changed]
    holding.nodes_gone(removed)
    holding.nodes_back(names)
    snapshots.overbooked.touch([*names, *removed])
    bookings = store.booking_changes(snapshots.generation)
    stored = nodes.by_name.__contains__
    if bookings.full:
        holding.clear()
        snapshots.sync(bookings.reservations)
    for workload in bookings.released:
        snapshots.release(workload)
        holding.drop(workload)
    for record in bookings.holding:
        snapshots.charge(record.id, bookings.reservations[record.id])
        holding.put(record, stored)
    for workload in sorted(snapshots.touched - {*bookings.released, *bookings.reservations}):
        _read_again(store, workload, snapshots, holding, stored)
    snapshots.touched.clear()
    snapshots.generation = bookings.generation
    return CycleView(nodes, state.tracker.external, snapshots, holding, state.trees)


def _read_again(
    store: Store,
    workload: int,
    snapshots: SnapshotCache,
    holding: HoldingIndex,
    stored: Callable[[str], bool],
) -> None:
    try:
        record = store.get_workload(workload)
    except NotFoundError:
        record = None
    if record is None or not record.state.holds_capacity:
        snapshots.release(workload)
        holding.drop(workload)
        return
    snapshots.charge(workload, store.reservations(workload))
    holding.put(record, stored)
