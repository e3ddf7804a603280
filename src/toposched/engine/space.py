"""Every node a hierarchical placement may use, across several Topology objects.

KAI subgroups may each name their own Topology, and a pod placed through one topology uses
capacity another topology sees too. ``NodeSpace`` therefore keeps one free-capacity matrix over
the union of the member nodes of all snapshots (rows sorted by node name, so the row index is the
name tie-break) and, per topology, the domain of every row at every level (-1 = not a member).
Capacity over those rows is a ``Ledger`` (``NodeSpace.ledger``): its journal rolls a failed
attempt back exactly.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from toposched.engine.ledger import Ledger
from toposched.model import Taint, Toleration, Topology
from toposched.model.node import tolerates_all
from toposched.snapshot import BoolArray, Snapshot
from toposched.topology import IntArray, TopologyTree


@dataclass(frozen=True, slots=True)
class TopoView:
    """One topology seen over the rows of a ``NodeSpace``."""

    tree: TopologyTree
    member: BoolArray  # per row: the node carries every level label of this topology
    codes: tuple[IntArray, ...]  # per level: domain index of each row, -1 outside

    @property
    def topology(self) -> Topology:
        return self.tree.topology

    def domain_id(self, level: int, index: int) -> str:
        """KAI's domain id: the label values from the top level down, joined with dots."""
        return ".".join(self.tree.path(level, index))


class NodeSpace:
    """Every usable node of several topologies, their capacity (``ledger``) and the topology
    views over them."""

    def __init__(self, main: Snapshot, snapshots: Mapping[str, Snapshot] | None = None) -> None:
        by_name: dict[str, Snapshot] = {main.tree.topology.name: main}
        for name, snap in (snapshots or {}).items():
            by_name.setdefault(name, snap)
        ordered = [main, *(s for n, s in sorted(by_name.items()) if s is not main)]
        self._owners = _owners(ordered)
        self.names: tuple[str, ...] = self._owners.names
        columns: dict[str, int] = {}
        for snap in ordered:
            for resource in snap.resources:
                columns.setdefault(resource, len(columns))
        free: IntArray = np.zeros((len(self.names), len(columns)), dtype=np.int64)
        for snap, rows, theirs in self._owners.parts:
            cols = np.asarray([columns[r] for r in snap.columns], dtype=np.int64)
            free[rows[:, None], cols[None, :]] = snap.free[theirs][:, list(snap.columns.values())]
        self.ledger = Ledger(free, columns, owned=True)  # a fresh matrix: no copy needed
        self._tainted = self._owners.taint_groups()
        self.views: dict[str, TopoView] = {
            name: self._view(snap.tree, self._owners.rows_of(snap.tree)) for name, snap in by_name.items()
        }
        self.default = main.tree.topology.name
        self._eligible: dict[object, BoolArray] = {}
        self._row: dict[str, int] | None = None

    @property
    def row(self) -> dict[str, int]:
        """Row of each node name (built on first use: most placements never need it)."""
        if self._row is None:
            self._row = {name: i for i, name in enumerate(self.names)}
        return self._row

    def _view(self, tree: TopologyTree, rows: IntArray) -> TopoView:
        member = np.zeros(len(self.names), dtype=np.bool_)
        member[rows] = True
        codes = []
        for level in range(tree.depth):
            code = np.full(len(self.names), -1, dtype=np.int64)
            code[rows] = tree.node_domain[level]
            codes.append(code)
        return TopoView(tree, member, tuple(codes))

    @property
    def size(self) -> int:
        return len(self.names)

    def eligible(
        self, tolerations: tuple[Toleration, ...], selector: tuple[tuple[str, str], ...]
    ) -> BoolArray:
        """Rows whose taints the pod tolerates and whose labels match its selector (cached)."""
        key = (tolerations, selector)
        cached = self._eligible.get(key)
        if cached is None:
            cached = np.ones(self.size, dtype=np.bool_)
            for taints, rows in self._tainted:
                if tolerates_all(tolerations, taints) is not None:
                    cached[rows] = False
            for label, value in selector:
                cached &= self._owners.label_is(label, value)
            self._eligible[key] = cached
        return cached


class _Owners:
    """Which snapshot owns each row: node names in name order, and per owning snapshot the rows
    it owns with their row numbers there (a node in several snapshots belongs to the first)."""

    def __init__(self, names: tuple[str, ...], parts: list[tuple[Snapshot, IntArray, IntArray]]) -> None:
        self.names = names
        self.parts = parts

    def rows_of(self, tree: TopologyTree) -> IntArray:
        """Rows of a tree's member nodes, in the tree's node order."""
        for snap, rows, theirs in self.parts:
            if snap.tree is tree and len(theirs) == tree.node_count:
                out = np.empty(tree.node_count, dtype=np.int64)
                out[theirs] = rows
                return out
        # A tree sharing nodes with an earlier snapshot: find its names among the sorted ones.
        ordered = np.asarray(self.names, dtype=np.str_)
        return np.searchsorted(ordered, tree.by_name()[2])[np.argsort(tree.by_name()[0])].astype(np.int64)

    def taint_groups(self) -> list[tuple[tuple[Taint, ...], IntArray]]:
        """Rows with scheduling-blocking taints, grouped by taint list (per owning snapshot)."""
        out: list[tuple[tuple[Taint, ...], IntArray]] = []
        for snap, rows, theirs in self.parts:
            at = np.full(snap.tree.node_count, -1, dtype=np.int64)
            at[theirs] = rows
            for taints, members in snap.tree.taint_groups():
                mine = at[members]
                mine = mine[mine >= 0]
                if len(mine):
                    out.append((taints, mine))
        return out

    def label_is(self, label: str, value: str) -> BoolArray:
        """Rows whose node carries ``label`` with ``value``."""
        match = np.zeros(len(self.names), dtype=np.bool_)
        for snap, rows, theirs in self.parts:
            codes, table = snap.tree.label_codes(label)
            code = table.get(value)
            if code is not None:
                match[rows] = codes[theirs] == code
        return match


def _owners(ordered: list[Snapshot]) -> _Owners:
    """Rows (sorted by node name, so the row is the name tie-break) over several snapshots."""
    if len(ordered) == 1:
        order, names, _ = ordered[0].tree.by_name()
        return _Owners(names, [(ordered[0], np.arange(len(names), dtype=np.int64), order)])
    arrays = [snap.tree.by_name()[2] for snap in ordered]
    everything = np.concatenate(arrays) if arrays else np.zeros(0, dtype=np.str_)
    unique, first = np.unique(everything, return_index=True)  # first occurrence = first owner
    offsets = np.cumsum([0, *(len(a) for a in arrays)])
    owner = np.searchsorted(offsets, first, side="right") - 1
    parts: list[tuple[Snapshot, IntArray, IntArray]] = []
    for k, snap in enumerate(ordered):
        rows = np.flatnonzero(owner == k).astype(np.int64)
        if len(rows):
            order = snap.tree.by_name()[0]
            parts.append((snap, rows, order[first[rows] - offsets[k]]))
    return _Owners(tuple(unique.tolist()), parts)
