"""Every node a hierarchical placement may use, across several Topology objects.

KAI subgroups may each name their own Topology, and a pod placed through one topology uses
capacity another topology sees too. ``NodeSpace`` therefore keeps one free-capacity matrix over
the union of the member nodes of all snapshots and, per topology, the domain of every row at
every level (-1 = not a member). Rows are the main snapshot's own rows (its tree order) followed
by the nodes only other snapshots hold, by name: every domain of the main topology is then one
contiguous row range (``TopoView.bounds``), and a placement on one snapshot reads its free
matrix as it is. Node names break ties through ``name_rank``. Capacity over those rows is a
``Ledger`` (``NodeSpace.ledger``): its journal rolls a failed attempt back exactly.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np

from toposched.engine.core.caches import EngineCaches, Slot
from toposched.engine.core.domain_sums import DomainSums, RowValues
from toposched.engine.core.ledger import Ledger
from toposched.model import Taint, Toleration, Topology
from toposched.model.node import tolerates_all
from toposched.snapshot import BoolArray, Snapshot
from toposched.topology import IntArray, TopologyTree

Shared = TypeVar("Shared", bound=np.ndarray[Any, Any])


@dataclass(frozen=True, slots=True)
class TopoView:
    """One topology seen over the rows of a ``NodeSpace``."""

    tree: TopologyTree
    member: BoolArray  # per row: the node carries every level label of this topology
    codes: tuple[IntArray, ...]  # per level: domain index of each row, -1 outside
    # Per level, when every domain is one row range (the main topology): domain d holds rows
    # bounds[level][d] to bounds[level][d + 1]. None for the other topologies.
    bounds: tuple[IntArray, ...] | None = None

    @property
    def topology(self) -> Topology:
        return self.tree.topology

    def domain_id(self, level: int, index: int) -> str:
        """KAI's domain id: the label values from the top level down, joined with dots."""
        return ".".join(self.tree.path(level, index))


@dataclass(frozen=True, slots=True)
class RowScores:
    """Per row, a score of its domain at one level (``outside`` for rows in none), read for the
    rows a fill asks about only: ``scores[rows]``."""

    codes: IntArray  # per row, its domain at the level (-1 outside)
    by_domain: IntArray
    outside: int

    def __getitem__(self, rows: IntArray) -> IntArray:
        codes = self.codes[rows]
        found: IntArray = np.where(codes >= 0, self.by_domain[np.maximum(codes, 0)], self.outside)
        return found


class NodeSpace:
    """Every usable node of several topologies, their capacity (``ledger``) and the topology
    views over them.

    ``NodeSpace.open`` gives one for a placement. The space of a single snapshot is kept in the
    session's ``caches`` for the next placement on it (``close`` rolls its ledger back to the
    snapshot's free capacity): what it derives from that capacity, per-domain sums above all, is then computed
    once per snapshot version instead of once per placement, and for a new version moved by the
    rows the snapshot says changed (``Snapshot.changed_rows``) instead of summed again."""

    def __init__(
        self,
        main: Snapshot,
        snapshots: Mapping[str, Snapshot] | None = None,
        caches: EngineCaches | None = None,
    ) -> None:
        """A new space (``open`` reuses a kept one); without ``caches`` it keeps nothing."""
        caches = caches if caches is not None else EngineCaches()
        self.caches = caches
        by_name: dict[str, Snapshot] = {main.tree.topology.name: main}
        for name, snap in (snapshots or {}).items():
            by_name.setdefault(name, snap)
        others = [s for _, s in sorted(by_name.items()) if s is not main]
        self._version = main.version
        self._kept: list[NodeSpace] | None = None  # where ``close`` keeps a single snapshot's space
        if others:
            layout = _Layout.joined(main, others)
            self.ledger = Ledger(layout.free(main, others), layout.columns, owned=True)
        else:
            layout = caches.per_tree(main.tree, _LAYOUT, None, lambda: _single(main.tree))
            self.ledger = Ledger(main.free, main.columns)  # copied on the first charge only
            self._kept = caches.per_snapshot(main, _KEPT_SPACES, list)
        self.names: tuple[str, ...] = layout.names
        self.name_rank: IntArray = layout.name_rank  # per row, its name's place in name order
        self._layout = layout
        self.views: dict[str, TopoView] = {
            name: layout.views[id(snap.tree)] for name, snap in by_name.items()
        }
        self.default = main.tree.topology.name
        self._eligible: dict[object, BoolArray] = {}
        self._row: dict[str, int] | None = None
        # 0 .. size - 1 (read-only): the rows a gang starts from, made once per space.
        self.every_row: IntArray = np.arange(len(layout.names), dtype=np.int64)
        self.every_row.setflags(write=False)
        self._sums: dict[tuple[int, Hashable], DomainSums] = {}
        self.ledger.watch(self._charged)

    @classmethod
    def open(
        cls, main: Snapshot, snapshots: Mapping[str, Snapshot] | None, caches: EngineCaches
    ) -> NodeSpace:
        """A space for one placement (use it in ``with``): for a single snapshot the one an
        earlier placement on it closed when ``caches`` keep one, else a new one."""
        if any(snap is not main for snap in (snapshots or {}).values()):
            return cls(main, snapshots, caches)
        try:
            space = caches.per_snapshot(main, _KEPT_SPACES, list).pop()
        except IndexError:
            return cls(main, caches=caches)
        if space._version != main.version:  # the snapshot changed: start from its capacity again
            changed = main.changed_rows(space._version)
            space.ledger.reset(main.free, main.columns)
            if changed is None:  # not known which rows: every sum again
                space._sums.clear()
            else:  # the sums read the changed rows again (``checkpoint`` below), no others
                space._charged(changed)
            space._version = main.version
        for sums in space._sums.values():
            sums.checkpoint()
        return space

    def __enter__(self) -> NodeSpace:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def close(self) -> None:
        """The placement is done: give its charges back and keep a single snapshot's space
        for the next placement on that snapshot."""
        if self._kept is None:
            return
        self.ledger.undo(0)
        for sums in self._sums.values():
            sums.rolled_back()
        if not self._kept:  # one placement at a time per session: one kept space is enough
            self._kept.append(self)

    @property
    def row(self) -> dict[str, int]:
        """Row of each node name (built on first use: most placements never need it)."""
        if self._row is None:
            self._row = {name: i for i, name in enumerate(self.names)}
        return self._row

    @property
    def size(self) -> int:
        return len(self.names)

    def sums(self, view: TopoView, key: Hashable, values: RowValues) -> DomainSums:
        """Per-domain sums over ``view`` of the per-row quantity ``values`` (named by ``key``),
        summed on first use and kept current through every later charge and undo."""
        found = self._sums.get((id(view.tree), key))
        if found is None:
            found = self._sums[(id(view.tree), key)] = DomainSums(view, values)
            if self.ledger.mark() == 0:  # made from the capacity ``close`` rolls back to
                found.checkpoint()
        return found

    def kept_sums(self, view: TopoView, key: Hashable) -> DomainSums | None:
        """The sums ``sums`` made for ``key`` over ``view`` so far, if any (none is made)."""
        return self._sums.get((id(view.tree), key))

    def _charged(self, rows: IntArray) -> None:
        for sums in self._sums.values():
            sums.changed(rows)

    def eligible(
        self, tolerations: tuple[Toleration, ...], selector: tuple[tuple[str, str], ...]
    ) -> BoolArray:
        """Rows whose taints the pod tolerates and whose labels match its selector (cached)."""
        key = (tolerations, selector)
        cached = self._eligible.get(key)
        if cached is None:
            cached = np.ones(self.size, dtype=np.bool_)
            for taints, rows in self._layout.taint_groups():
                if tolerates_all(tolerations, taints) is not None:
                    cached[rows] = False
            for label, value in selector:
                cached &= self._layout.label_is(label, value)
            self._eligible[key] = cached
        return cached


# The space a placement on a single snapshot closed, kept for the next one (it holds no
# reference to the snapshot, so it goes with it); the row layout of one snapshot's tree.
_KEPT_SPACES: Slot[list[NodeSpace]] = Slot("node space of one snapshot")
_LAYOUT: Slot[_Layout] = Slot("rows of one snapshot")


def _frozen(array: Shared) -> Shared:
    """A shared array no placement may write to."""
    array.setflags(write=False)
    return array


def _bounds(tree: TopologyTree) -> tuple[IntArray, ...]:
    """Per level, the first node of each domain in tree order, then the node count."""
    n = tree.node_count
    if tree.depth == 0:
        return ()
    starts = [tree.leaf_start]
    for level in range(tree.depth - 2, -1, -1):
        starts.insert(0, starts[0][tree.child_start[level]])
    return tuple(_frozen(np.append(s, n).astype(np.int64)) for s in starts)


class _Layout:
    """Which node each row is, the views of the topologies over the rows, and per owning
    snapshot the rows it owns with their row numbers there (a node in several snapshots
    belongs to the first: the main one, then the others by topology name)."""

    def __init__(
        self,
        names: tuple[str, ...],
        name_rank: IntArray,
        views: dict[int, TopoView],
        parts: list[tuple[TopologyTree, IntArray, IntArray]],
        columns: dict[str, int],
    ) -> None:
        self.names = names
        self.name_rank = name_rank
        self.views = views  # by id of the tree
        self.parts = parts  # (tree, rows, their rows in that tree)
        self.columns = columns
        self._taint_groups: list[tuple[tuple[Taint, ...], IntArray]] | None = None

    @classmethod
    def joined(cls, main: Snapshot, others: Sequence[Snapshot]) -> _Layout:
        """Rows over several snapshots: the main snapshot's rows, then the nodes only the
        others hold, in name order."""
        n = main.tree.node_count
        extra: dict[str, tuple[TopologyTree, int]] = {}
        for snap in others:
            for i, name in enumerate(snap.tree.node_names):
                if main.tree.node_index(name) is None:
                    extra.setdefault(name, (snap.tree, i))
        extra_names = sorted(extra)
        names = (*main.tree.node_names, *extra_names)
        row = {name: n + k for k, name in enumerate(extra_names)}
        parts = [(main.tree, np.arange(n, dtype=np.int64), np.arange(n, dtype=np.int64))]
        for snap in others:
            mine = [(row[name], i) for name, (tree, i) in extra.items() if tree is snap.tree]
            if mine:
                pairs = np.asarray(sorted(mine), dtype=np.int64)
                parts.append((snap.tree, pairs[:, 0], pairs[:, 1]))
        ordered = np.asarray(names, dtype=np.str_)
        name_rank = np.empty(len(names), dtype=np.int64)
        name_rank[np.argsort(ordered, kind="stable")] = np.arange(len(names), dtype=np.int64)
        views = {
            id(main.tree): _view(main.tree, np.arange(n, dtype=np.int64), len(names), _bounds(main.tree))
        }
        for snap in others:
            if id(snap.tree) not in views:
                at = [main.tree.node_index(name) for name in snap.tree.node_names]
                rows = np.asarray(
                    [row[name] if i is None else i for i, name in zip(at, snap.tree.node_names, strict=True)],
                    dtype=np.int64,
                )
                views[id(snap.tree)] = _view(snap.tree, rows, len(names), None)
        columns = dict(main.columns)
        for snap in others:
            for resource in snap.resources:
                columns.setdefault(resource, len(columns))
        return cls(names, name_rank, views, parts, columns)

    def free(self, main: Snapshot, others: Sequence[Snapshot]) -> IntArray:
        """A fresh free matrix over the rows (see ``joined``)."""
        free: IntArray = np.zeros((len(self.names), len(self.columns)), dtype=np.int64)
        snaps = {id(s.tree): s for s in (*reversed(others), main)}
        for tree, rows, theirs in self.parts:
            snap = snaps[id(tree)]
            cols = np.asarray([self.columns[r] for r in snap.columns], dtype=np.int64)
            free[rows[:, None], cols[None, :]] = snap.free[theirs][:, list(snap.columns.values())]
        return free

    def taint_groups(self) -> list[tuple[tuple[Taint, ...], IntArray]]:
        """Rows with scheduling-blocking taints, grouped by taint list (per owning snapshot)."""
        if self._taint_groups is None:
            out: list[tuple[tuple[Taint, ...], IntArray]] = []
            for tree, rows, theirs in self.parts:
                at = np.full(tree.node_count, -1, dtype=np.int64)
                at[theirs] = rows
                for taints, members in tree.columns.taint_groups():
                    mine = at[members]
                    mine = mine[mine >= 0]
                    if len(mine):
                        out.append((taints, mine))
            self._taint_groups = out
        return self._taint_groups

    def label_is(self, label: str, value: str) -> BoolArray:
        """Rows whose node carries ``label`` with ``value``."""
        match = np.zeros(len(self.names), dtype=np.bool_)
        for tree, rows, theirs in self.parts:
            codes, table = tree.columns.label_codes(label)
            code = table.get(value)
            if code is not None:
                match[rows] = codes[theirs] == code
        return match


def _view(tree: TopologyTree, rows: IntArray, size: int, bounds: tuple[IntArray, ...] | None) -> TopoView:
    """``tree`` over ``size`` rows, its nodes (tree order) at ``rows``."""
    member = np.zeros(size, dtype=np.bool_)
    member[rows] = True
    codes = []
    for level in range(tree.depth):
        code = np.full(size, -1, dtype=np.int64)
        code[rows] = tree.node_domain[level]
        codes.append(_frozen(code))
    return TopoView(tree, _frozen(member), tuple(codes), bounds)


def _single(tree: TopologyTree) -> _Layout:
    """The rows of one snapshot: its own rows (depends on the tree only: kept per tree)."""
    n = tree.node_count
    everything = np.arange(n, dtype=np.int64)
    name_rank = np.empty(n, dtype=np.int64)
    name_rank[tree.columns.by_name()[0]] = everything
    view = TopoView(tree, _frozen(np.ones(n, dtype=np.bool_)), tree.node_domain, _bounds(tree))
    return _Layout(
        tree.node_names, _frozen(name_rank), {id(tree): view}, [(tree, everything, everything)], {}
    )
