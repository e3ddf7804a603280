"""The static domain tree of one topology over one node set.

Built once per (topology, node set) and shared by every snapshot and placement. Only schedulable
nodes (ready, not cordoned) that carry every level label are members; the others are outside the
topology. A topology with ``every_node`` (kube-scheduler's view) takes the others too: its
taint groups then hold each NotReady or cordoned member with the taint the node lifecycle
controller gives it, so only a pod tolerating that taint may use it. The level ``NODE_LEVEL`` (the node: its hostname, else its name) every node has.

Layout (dense, array based, so placement never walks Python objects per node):

* members are sorted by (level values, node name); a domain at level ``l`` is identified by its
  path, the tuple of the first ``l + 1`` level values, so the same rack name under two blocks is
  two domains;
* domains of a level are numbered in lexicographic order of their paths, so the index *is* the
  deterministic tie-break rank every sort key ends with;
* the children of a domain, the members of a leaf and the descendants of a domain at any deeper
  level are contiguous index ranges (CSR style), so descending touches only the chosen subtrees;
* paths are kept as codes: each level holds its distinct values once and each domain the code of
  its value (``PathCodes``). Lookups search the codes; the path tuples placement output reads
  (``paths``, ``leaf_values``, ``node_leaf_path``) are decoded on first use. Codes come from
  sorting each level's values once, then one ``lexsort`` orders the members, so building does a
  few C-level passes per level and sorts no tuples in Python.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from itertools import repeat
from operator import itemgetter

import numpy as np
import numpy.typing as npt

from toposched.model import Node, Taint, TaintEffect, Topology
from toposched.model.node import NODE_LEVEL, level_value
from toposched.topology.paths import IntArray, ObjectArray, PathCodes, value_codes


def member_order(names: list[str], level_codes: list[IntArray]) -> IntArray:
    """The order of members sorted by (level values, node name), stable, from value codes: the
    names are only ranked when two members share a full path (leaves of several nodes)."""
    keys = level_codes[::-1]  # lexsort sorts by its last key first
    order: IntArray = np.lexsort(keys).astype(np.int64)
    paths = np.stack([codes[order] for codes in level_codes])
    if np.any(np.all(paths[:, 1:] == paths[:, :-1], axis=0)):
        order = np.lexsort([value_codes(names)[1], *keys]).astype(np.int64)
    return order


NOT_READY = Taint("node.kubernetes.io/not-ready", "", TaintEffect.NO_SCHEDULE)
UNSCHEDULABLE = Taint("node.kubernetes.io/unschedulable", "", TaintEffect.NO_SCHEDULE)


def lifecycle_taints(node: Node) -> tuple[Taint, ...]:
    """The NoSchedule taints kube-controller-manager keeps on a NotReady or cordoned node."""
    return ((NOT_READY,) if not node.ready else ()) + ((UNSCHEDULABLE,) if node.unschedulable else ())


class TopologyTree:
    """Domains per level of one topology, with parent/child links as index arrays."""

    __slots__ = (
        "__weakref__",  # engine caches are kept per tree and go with it
        "_by_name",
        "_codes",
        "_dotted_rank",
        "_hostname_leaf",
        "_label_codes",
        "_leaf_values",
        "_node_index",
        "_node_leaf_path",
        "_paths",
        "_spans",
        "_taint_groups",
        "child_end",
        "child_start",
        "leaf_end",
        "leaf_start",
        "node_domain",
        "node_name_array",
        "node_names",
        "nodes",
        "outside",
        "parent",
        "topology",
    )

    topology: Topology
    nodes: tuple[Node, ...]
    node_names: tuple[str, ...]
    node_name_array: ObjectArray  # node_names as an array
    outside: tuple[str, ...]
    node_domain: tuple[IntArray, ...]
    parent: tuple[IntArray, ...]
    child_start: tuple[IntArray, ...]
    child_end: tuple[IntArray, ...]
    leaf_start: IntArray
    leaf_end: IntArray

    def __init__(self, topology: Topology, members: Sequence[Node], outside: Sequence[str]) -> None:
        """Lay out ``members`` (already filtered) as a tree. Use :meth:`build` instead."""
        depth = len(topology.levels)
        labels = [node.labels for node in members]
        coded = [
            value_codes(
                (level_value(n, key) or n.name for n in members)
                if key == NODE_LEVEL
                else map(itemgetter(key), labels)
            )
            for key in topology.levels
        ]
        order = member_order([node.name for node in members], [codes for _, codes in coded])
        self.topology = topology
        self.nodes = tuple(map(members.__getitem__, order.tolist()))
        self.node_names = tuple(node.name for node in self.nodes)
        self.outside = tuple(sorted(outside))
        size = len(self.nodes)
        # changed[i]: node i starts a new domain at the current level (or a shallower one).
        changed = np.ones(size, dtype=np.bool_)
        changed[1:] = False
        starts: list[IntArray] = []
        node_domain: list[IntArray] = []
        domain_codes: list[IntArray] = []
        for _, codes in coded:
            ordered = codes[order]
            changed[1:] |= ordered[1:] != ordered[:-1]
            starts.append(np.flatnonzero(changed).astype(np.int64))
            node_domain.append(np.cumsum(changed, dtype=np.int64) - 1)
            domain_codes.append(ordered[starts[-1]])
        self.node_domain = tuple(node_domain)
        parents = [np.full(len(starts[0]), -1, dtype=np.int64)]
        child_start: list[IntArray] = []
        child_end: list[IntArray] = []
        for level in range(1, depth):
            parents.append(self.node_domain[level - 1][starts[level]])
            begin = self.node_domain[level][starts[level - 1]]
            child_start.append(begin)
            child_end.append(np.append(begin[1:], len(starts[level])).astype(np.int64))
        self.parent = tuple(parents)
        self.child_start = tuple(child_start)
        self.child_end = tuple(child_end)
        self.leaf_start = starts[-1]
        self.leaf_end = np.append(self.leaf_start[1:], size).astype(np.int64)
        self._codes = PathCodes(tuple(values for values, _ in coded), tuple(domain_codes), self.parent)
        self.node_name_array = np.fromiter(self.node_names, dtype=object, count=size)
        self._paths: tuple[tuple[tuple[str, ...], ...], ...] | None = None
        self._leaf_values: tuple[tuple[str, ...], ...] | None = None
        self._node_leaf_path: ObjectArray | None = None
        self._node_index: dict[str, int] | None = None
        self._hostname_leaf: IntArray | None = None
        self._label_codes: dict[str, tuple[IntArray, dict[str, int]]] = {}
        self._taint_groups: list[tuple[tuple[Taint, ...], IntArray]] | None = None
        self._by_name: tuple[IntArray, tuple[str, ...], npt.NDArray[np.str_]] | None = None
        self._dotted_rank: dict[int, IntArray] = {}
        self._spans: dict[tuple[int, int, int], tuple[tuple[int, int], ...]] = {}

    @classmethod
    def build(cls, topology: Topology, nodes: Sequence[Node]) -> TopologyTree:
        """The tree of ``topology`` over the schedulable nodes (every node for ``every_node``)
        that carry every level label (``NODE_LEVEL``, the node itself, every node has)."""
        members: list[Node] = []
        outside: list[str] = []
        levels = frozenset(topology.levels) - {NODE_LEVEL}
        for node in nodes:
            if (node.schedulable or topology.every_node) and levels <= node.labels.keys():
                members.append(node)
            else:
                outside.append(node.name)
        return cls(topology, members, outside)

    # -- shape -------------------------------------------------------------------------------

    @property
    def levels(self) -> tuple[str, ...]:
        return self.topology.levels

    @property
    def depth(self) -> int:
        return len(self.topology.levels)

    @property
    def leaf_level(self) -> int:
        return len(self.topology.levels) - 1

    @property
    def hostname_is_lowest(self) -> bool:
        return self.topology.hostname_is_lowest

    @property
    def node_count(self) -> int:
        return len(self.nodes)

    @property
    def one_node_per_leaf(self) -> bool:
        """True when every leaf holds exactly one node (the usual hostname topology)."""
        return len(self.leaf_start) == len(self.nodes)

    def count(self, level: int) -> int:
        """Number of domains at ``level``."""
        return len(self._codes.codes[level])

    # -- paths, decoded on first use (placement output reads them per pod) -------------------

    @property
    def paths(self) -> tuple[tuple[tuple[str, ...], ...], ...]:
        """Per level, the path of each domain."""
        if self._paths is None:
            self._paths = tuple(
                tuple(self._codes.paths(level, np.arange(self.count(level), dtype=np.int64)))
                for level in range(self.depth)
            )
        return self._paths

    @property
    def leaf_values(self) -> tuple[tuple[str, ...], ...]:
        """Per leaf, its assignment entry: ``(hostname,)`` for hostname topologies (Kueue writes
        the hostname alone), else its path (see ``leaf_for_values``)."""
        if self._leaf_values is None:
            leaf = self.leaf_level
            if self.hostname_is_lowest:
                leaves = np.arange(self.count(leaf), dtype=np.int64)
                self._leaf_values = tuple(self._codes.paths(leaf, leaves, first=leaf))
            else:
                self._leaf_values = self.paths[leaf]
        return self._leaf_values

    @property
    def node_leaf_path(self) -> ObjectArray:
        """Per member node, the path of its leaf (an array, so per-pod results take one index)."""
        if self._node_leaf_path is None:
            leaf_paths = np.fromiter(self.paths[-1], dtype=object, count=self.count(self.leaf_level))
            self._node_leaf_path = leaf_paths[self.node_domain[-1]]
        return self._node_leaf_path

    # -- lookups -----------------------------------------------------------------------------

    def path(self, level: int, index: int) -> tuple[str, ...]:
        return self.paths[level][index]

    def index_of(self, level: int, path: Sequence[str]) -> int | None:
        """The index of the domain with this full path at ``level``, or None."""
        if len(path) != level + 1:
            return None
        index, start, end = -1, 0, self.count(0)
        for lvl, value in enumerate(path):
            code = self._codes.code(lvl, value)
            if code is None:
                return None
            if lvl:
                start, end = self.children(lvl - 1, index)
            # Siblings are numbered in the order of their own values: a binary search finds one.
            codes = self._codes.codes[lvl]
            index = start + int(np.searchsorted(codes[start:end], code))
            if index == end or codes[index] != code:
                return None
        return index

    def leaf_for_values(self, values: Sequence[str]) -> int | None:
        """The leaf of an assignment entry: a hostname for hostname topologies, else a full path
        (the inverse of ``leaf_values``, the entry of each leaf)."""
        if self.hostname_is_lowest and len(values) == 1:
            code = self._codes.code(self.leaf_level, values[0])
            return None if code is None else int(self._first_leaf_by_hostname()[code])
        return self.index_of(self.leaf_level, values)

    def node_index(self, name: str) -> int | None:
        return self._names().get(name)

    def node_rows(self, names: Iterable[str]) -> IntArray:
        """Per name, the index of that member node; -1 for names outside the tree."""
        return np.fromiter(map(self._names().get, names, repeat(-1)), dtype=np.int64)

    def level_index(self, level: str) -> int | None:
        """Depth of a level given by label key or alias; None when the topology lacks it."""
        resolved = self.topology.resolve(level)
        return None if resolved is None else self.topology.levels.index(resolved)

    # -- ranges ------------------------------------------------------------------------------

    def children(self, level: int, index: int) -> tuple[int, int]:
        """Index range [start, end) of the children (at ``level + 1``) of one domain."""
        return int(self.child_start[level][index]), int(self.child_end[level][index])

    def descendants(self, level: int, index: int, target: int) -> tuple[int, int]:
        """Index range at level ``target >= level`` covered by one domain."""
        start, end = index, index + 1
        for lvl in range(level, target):
            start, end = int(self.child_start[lvl][start]), int(self.child_end[lvl][end - 1])
        return start, end

    def descendant_spans(self, level: int, index: int, target: int) -> tuple[tuple[int, int], ...]:
        """``descendants`` of one domain at each level from ``level`` to ``target`` (kept: a
        domain's siblings in a placement ask for the same)."""
        key = (level, index, target)
        found = self._spans.get(key)
        if found is None:
            found = self._spans[key] = tuple(
                self.descendants(level, index, lvl) for lvl in range(level, target + 1)
            )
        return found

    def ancestor(self, level: int, index: int, target: int) -> int:
        """The domain at level ``target <= level`` that contains one domain."""
        for lvl in range(level, target, -1):
            index = int(self.parent[lvl][index])
        return index

    def leaf_nodes(self, leaf: int) -> range:
        """Member node indices of one leaf (in node-name order)."""
        return range(int(self.leaf_start[leaf]), int(self.leaf_end[leaf]))

    # -- cached per-node columns ---------------------------------------------------------------

    def label_codes(self, key: str) -> tuple[IntArray, Mapping[str, int]]:
        """Per member node, an integer code of its value for label ``key`` (-1 when absent)."""
        cached = self._label_codes.get(key)
        if cached is None:
            table: dict[str, int] = {}
            codes = np.fromiter(
                (table.setdefault(n.labels[key], len(table)) if key in n.labels else -1 for n in self.nodes),
                dtype=np.int64,
                count=len(self.nodes),
            )
            cached = (codes, table)
            self._label_codes[key] = cached
        return cached

    def by_name(self) -> tuple[IntArray, tuple[str, ...], npt.NDArray[np.str_]]:
        """Member nodes in name order: their indices, their names, and the names as an array
        (what name-ordered views such as the hierarchical solver's node space are built from)."""
        if self._by_name is None:
            names = np.asarray(self.node_names, dtype=np.str_)
            order = np.argsort(names, kind="stable").astype(np.int64)
            ordered = names[order]
            self._by_name = (order, tuple(map(self.node_names.__getitem__, order.tolist())), ordered)
        return self._by_name

    def dotted_rank(self, level: int) -> IntArray:
        """Per domain of ``level``, its rank when domains are ordered by their path values joined
        with dots (KAI's domain id, ``zone1.rack2``), which is not always the path order."""
        cached = self._dotted_rank.get(level)
        if cached is None:
            ids = list(map(".".join, self.paths[level]))
            order = sorted(range(len(ids)), key=ids.__getitem__)
            cached = np.empty(len(ids), dtype=np.int64)
            cached[np.asarray(order, dtype=np.int64)] = np.arange(len(ids), dtype=np.int64)
            self._dotted_rank[level] = cached
        return cached

    def taint_groups(self) -> list[tuple[tuple[Taint, ...], IntArray]]:
        """Member nodes with scheduling-blocking taints, grouped by their taint list (a NotReady
        or cordoned member with the taint its state gives it)."""
        if self._taint_groups is None:
            groups: dict[tuple[Taint, ...], list[int]] = {}
            for i, node in enumerate(self.nodes):
                blocking = tuple(t for t in node.taints if t.blocks_scheduling) + lifecycle_taints(node)
                if blocking:
                    groups.setdefault(blocking, []).append(i)
            self._taint_groups = [(taints, np.asarray(idx, dtype=np.int64)) for taints, idx in groups.items()]
        return self._taint_groups

    def _names(self) -> dict[str, int]:
        """Node name -> member index, built on first use."""
        if self._node_index is None:
            self._node_index = dict(zip(self.node_names, range(len(self.node_names)), strict=True))
        return self._node_index

    def _first_leaf_by_hostname(self) -> IntArray:
        """Per hostname (leaf-level value code), its first leaf, built on first use."""
        if self._hostname_leaf is None:
            self._hostname_leaf = np.unique(self._codes.codes[-1], return_index=True)[1].astype(np.int64)
        return self._hostname_leaf

    def __repr__(self) -> str:
        shape = " x ".join(f"{self.count(level)}" for level in range(self.depth))
        return f"TopologyTree({self.topology.name!r}, nodes={len(self.nodes)}, domains={shape})"
