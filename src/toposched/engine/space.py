"""Every node a hierarchical placement may use, across several Topology objects.

KAI subgroups may each name their own Topology, and a pod placed through one topology uses
capacity another topology sees too. ``NodeSpace`` therefore keeps one free-capacity matrix over
the union of the member nodes of all snapshots (rows sorted by node name, so the row index is the
name tie-break) and, per topology, the domain of every row at every level (-1 = not a member).
Charges go through a journal, so a failed attempt is rolled back exactly.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from toposched.model import Node, Resources, Toleration, Topology
from toposched.model.node import tolerates_all
from toposched.snapshot import BoolArray, Snapshot, per_slot_requests
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
    """Free capacity of every usable node plus the topology views over them."""

    def __init__(self, main: Snapshot, snapshots: Mapping[str, Snapshot] | None = None) -> None:
        by_name: dict[str, Snapshot] = {main.tree.topology.name: main}
        for name, snap in (snapshots or {}).items():
            by_name.setdefault(name, snap)
        ordered = [main, *(s for n, s in sorted(by_name.items()) if s is not main)]
        owner: dict[str, tuple[int, int]] = {}  # node -> (snapshot position, row there)
        for k, snap in enumerate(ordered):
            for i, name in enumerate(snap.tree.node_names):
                owner.setdefault(name, (k, i))
        self.names: tuple[str, ...] = tuple(sorted(owner))
        self.row: dict[str, int] = {name: i for i, name in enumerate(self.names)}
        columns: dict[str, int] = {}
        for snap in ordered:
            for resource in snap.resources:
                columns.setdefault(resource, len(columns))
        self.columns = columns
        self.free: IntArray = np.zeros((len(self.names), len(columns)), dtype=np.int64)
        nodes: list[Node | None] = [None] * len(self.names)
        for k, snap in enumerate(ordered):
            pairs = [(self.row[n], i) for n, (o, i) in owner.items() if o == k]
            if not pairs:
                continue
            rows = np.asarray([r for r, _ in pairs], dtype=np.int64)
            theirs = np.asarray([i for _, i in pairs], dtype=np.int64)
            for resource, col in snap.columns.items():
                self.free[rows, columns[resource]] = snap.free[theirs, col]
            for r, i in pairs:
                nodes[r] = snap.tree.nodes[i]
        self.nodes: tuple[Node, ...] = tuple(n for n in nodes if n is not None)
        self._tainted = [r for r, n in enumerate(self.nodes) if any(t.blocks_scheduling for t in n.taints)]
        self.views: dict[str, TopoView] = {name: self._view(snap.tree) for name, snap in by_name.items()}
        self.default = main.tree.topology.name
        self._journal: list[tuple[int, IntArray]] = []
        self._eligible: dict[object, BoolArray] = {}

    def _view(self, tree: TopologyTree) -> TopoView:
        rows = np.asarray([self.row[n] for n in tree.node_names], dtype=np.int64)
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

    # -- capacity ------------------------------------------------------------------------------

    def vector(self, requests: Resources) -> IntArray:
        """One pod's charge (pods slot included) as a row vector; unknown resources get a column."""
        charged = per_slot_requests(requests)
        for resource in charged:
            if resource not in self.columns:
                self.columns[resource] = len(self.columns)
                self.free = np.concatenate([self.free, np.zeros((self.size, 1), dtype=np.int64)], axis=1)
        vec = np.zeros(len(self.columns), dtype=np.int64)
        for resource, amount in charged.items():
            vec[self.columns[resource]] = amount
        return vec

    def charge(self, row: int, vec: IntArray) -> None:
        if len(vec) < self.free.shape[1]:
            vec = np.pad(vec, (0, self.free.shape[1] - len(vec)))
        self.free[row] -= vec
        self._journal.append((row, vec))

    def mark(self) -> int:
        """A checkpoint: the journal length."""
        return len(self._journal)

    def rollback(self, mark: int) -> None:
        """Undo every charge made after ``mark``."""
        while len(self._journal) > mark:
            row, vec = self._journal.pop()
            self.free[row] += vec

    def column(self, resource: str) -> IntArray:
        col = self.columns.get(resource)
        return np.zeros(self.size, dtype=np.int64) if col is None else self.free[:, col]

    def eligible(
        self, tolerations: tuple[Toleration, ...], selector: tuple[tuple[str, str], ...]
    ) -> BoolArray:
        """Rows whose taints the pod tolerates and whose labels match its selector (cached)."""
        key = (tolerations, selector)
        cached = self._eligible.get(key)
        if cached is None:
            cached = np.ones(self.size, dtype=np.bool_)
            for r in self._tainted:
                cached[r] = tolerates_all(tolerations, self.nodes[r].taints) is None
            if selector:
                cached &= np.fromiter(
                    (all(n.labels.get(k) == v for k, v in selector) for n in self.nodes),
                    dtype=np.bool_,
                    count=self.size,
                )
            self._eligible[key] = cached
        return cached
