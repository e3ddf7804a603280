"""The static domain tree of one topology over one node set.

Built once per (topology, node set) and shared by every snapshot and placement. Only schedulable
nodes (ready, not cordoned) that carry every level label are members; the others are outside the
topology.

Layout (dense, array based, so placement never walks Python objects per node):

* members are sorted by (level values, node name); a domain at level ``l`` is identified by its
  path, the tuple of the first ``l + 1`` level values, so the same rack name under two blocks is
  two domains;
* domains of a level are numbered in lexicographic order of their paths, so the index *is* the
  deterministic tie-break rank every sort key ends with;
* the children of a domain, the members of a leaf and the descendants of a domain at any deeper
  level are contiguous index ranges (CSR style), so descending touches only the chosen subtrees.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from operator import itemgetter

import numpy as np
import numpy.typing as npt

from toposched.model import Node, Taint, Topology

IntArray = npt.NDArray[np.int64]
ObjectArray = npt.NDArray[np.object_]


class TopologyTree:
    """Domains per level of one topology, with parent/child links as index arrays."""

    __slots__ = (
        "_by_name",
        "_codes",
        "_dotted_rank",
        "_hostname_leaf",
        "_node_index",
        "_path_index",
        "_taint_groups",
        "child_end",
        "child_start",
        "leaf_end",
        "leaf_start",
        "leaf_values",
        "node_domain",
        "node_leaf_path",
        "node_name_array",
        "node_names",
        "nodes",
        "outside",
        "parent",
        "paths",
        "topology",
    )

    topology: Topology
    nodes: tuple[Node, ...]
    node_names: tuple[str, ...]
    node_name_array: ObjectArray  # node_names as an array
    node_leaf_path: ObjectArray  # per node, the path of its leaf
    outside: tuple[str, ...]
    paths: tuple[tuple[tuple[str, ...], ...], ...]
    node_domain: tuple[IntArray, ...]
    parent: tuple[IntArray, ...]
    child_start: tuple[IntArray, ...]
    child_end: tuple[IntArray, ...]
    leaf_start: IntArray
    leaf_end: IntArray
    leaf_values: tuple[tuple[str, ...], ...]  # per leaf, its assignment entry (see leaf_for_values)

    def __init__(self, topology: Topology, members: Sequence[Node], outside: Sequence[str]) -> None:
        """Lay out ``members`` (already filtered) as a tree. Use :meth:`build` instead."""
        levels = topology.levels
        depth = len(levels)
        keyed = sorted(
            ((tuple(n.labels[k] for k in levels), n.name, n) for n in members), key=lambda t: t[:2]
        )
        self.topology = topology
        self.nodes = tuple(t[2] for t in keyed)
        self.node_names = tuple(t[1] for t in keyed)
        self.outside = tuple(sorted(outside))
        count = len(keyed)
        # first[i] = shallowest level at which node i starts a new domain (depth: same leaf as i-1).
        first = np.empty(count, dtype=np.int64)
        previous: tuple[str, ...] | None = None
        for i, (path, _, _) in enumerate(keyed):
            level = 0
            if previous is not None:
                while level < depth and path[level] == previous[level]:
                    level += 1
            first[i] = level
            previous = path
        starts = [np.flatnonzero(first <= level) for level in range(depth)]
        self.node_domain = tuple(np.cumsum(first <= level, dtype=np.int64) - 1 for level in range(depth))
        self.paths = tuple(
            tuple(keyed[int(i)][0][: level + 1] for i in starts[level]) for level in range(depth)
        )
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
        self.leaf_start = starts[-1].astype(np.int64) if depth else np.zeros(0, dtype=np.int64)
        self.leaf_end = np.append(self.leaf_start[1:], count).astype(np.int64)
        # The same names and leaf paths as object arrays, so per-pod results take one fancy index.
        self.node_name_array = np.fromiter(self.node_names, dtype=object, count=count)
        leaf_paths = np.fromiter(self.paths[-1] if depth else (), dtype=object, count=len(self.leaf_start))
        self.node_leaf_path = leaf_paths[self.node_domain[-1]] if depth else np.empty(0, dtype=object)
        self._node_index = {name: i for i, name in enumerate(self.node_names)}
        self._path_index: list[dict[tuple[str, ...], int]] = [
            {p: i for i, p in enumerate(level_paths)} for level_paths in self.paths
        ]
        self._hostname_leaf: dict[str, int] = {}
        self.leaf_values = self.paths[-1] if depth else ()
        if topology.hostname_is_lowest:
            for i, path in enumerate(self.paths[-1]):
                self._hostname_leaf.setdefault(path[-1], i)
            self.leaf_values = tuple(zip(map(itemgetter(-1), self.paths[-1])))  # (hostname,) per leaf
        self._codes: dict[str, tuple[IntArray, dict[str, int]]] = {}
        self._taint_groups: list[tuple[tuple[Taint, ...], IntArray]] | None = None
        self._by_name: tuple[IntArray, tuple[str, ...], npt.NDArray[np.str_]] | None = None
        self._dotted_rank: dict[int, IntArray] = {}

    @classmethod
    def build(cls, topology: Topology, nodes: Sequence[Node]) -> TopologyTree:
        """The tree of ``topology`` over the schedulable nodes that carry every level label."""
        members: list[Node] = []
        outside: list[str] = []
        for node in nodes:
            if node.schedulable and all(key in node.labels for key in topology.levels):
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
        return len(self.paths[level])

    # -- lookups -----------------------------------------------------------------------------

    def path(self, level: int, index: int) -> tuple[str, ...]:
        return self.paths[level][index]

    def index_of(self, level: int, path: tuple[str, ...]) -> int | None:
        """The index of the domain with this full path at ``level``, or None."""
        return self._path_index[level].get(path)

    def leaf_for_values(self, values: Sequence[str]) -> int | None:
        """The leaf of an assignment entry: a hostname for hostname topologies, else a full path
        (the inverse of ``leaf_values``, the entry of each leaf)."""
        if self.hostname_is_lowest and len(values) == 1:
            return self._hostname_leaf.get(values[0])
        return self._path_index[-1].get(tuple(values))

    def node_index(self, name: str) -> int | None:
        return self._node_index.get(name)

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
        cached = self._codes.get(key)
        if cached is None:
            table: dict[str, int] = {}
            codes = np.fromiter(
                (table.setdefault(n.labels[key], len(table)) if key in n.labels else -1 for n in self.nodes),
                dtype=np.int64,
                count=len(self.nodes),
            )
            cached = (codes, table)
            self._codes[key] = cached
        return cached

    def by_name(self) -> tuple[IntArray, tuple[str, ...], npt.NDArray[np.str_]]:
        """Member nodes in name order: their indices, their names, and the names as an array
        (what name-ordered views such as the hierarchical solver's node space are built from)."""
        if self._by_name is None:
            names = np.asarray(self.node_names, dtype=np.str_)
            order = np.argsort(names, kind="stable").astype(np.int64)
            ordered = names[order]
            self._by_name = (order, tuple(ordered.tolist()), ordered)
        return self._by_name

    def dotted_rank(self, level: int) -> IntArray:
        """Per domain of ``level``, its rank when domains are ordered by their path values joined
        with dots (KAI's domain id, ``zone1.rack2``), which is not always the path order."""
        cached = self._dotted_rank.get(level)
        if cached is None:
            ids = [".".join(path) for path in self.paths[level]]
            order = sorted(range(len(ids)), key=ids.__getitem__)
            cached = np.empty(len(ids), dtype=np.int64)
            cached[np.asarray(order, dtype=np.int64)] = np.arange(len(ids), dtype=np.int64)
            self._dotted_rank[level] = cached
        return cached

    def taint_groups(self) -> list[tuple[tuple[Taint, ...], IntArray]]:
        """Member nodes with scheduling-blocking taints, grouped by their taint list."""
        if self._taint_groups is None:
            groups: dict[tuple[Taint, ...], list[int]] = {}
            for i, node in enumerate(self.nodes):
                blocking = tuple(t for t in node.taints if t.blocks_scheduling)
                if blocking:
                    groups.setdefault(blocking, []).append(i)
            self._taint_groups = [(taints, np.asarray(idx, dtype=np.int64)) for taints, idx in groups.items()]
        return self._taint_groups

    def __repr__(self) -> str:
        shape = " x ".join(f"{self.count(level)}" for level in range(self.depth))
        return f"TopologyTree({self.topology.name!r}, nodes={len(self.nodes)}, domains={shape})"
