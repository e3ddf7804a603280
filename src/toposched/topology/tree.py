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

The layout is built by ``layout``; paths are decoded by ``paths.DecodedPaths``; the per-member
columns only some callers read (label codes, name order, dotted ranks, taint groups) are
``columns.MemberColumns``, reached as ``tree.columns``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import repeat

import numpy as np

from toposched.model import Node, Topology
from toposched.model.node import NODE_LEVEL
from toposched.topology.columns import MemberColumns
from toposched.topology.layout import lay_out
from toposched.topology.paths import DecodedPaths, IntArray, ObjectArray


class TopologyTree:
    """Domains per level of one topology, with parent/child links as index arrays."""

    __slots__ = (
        "__weakref__",  # engine caches are kept per tree and go with it
        "_codes",
        "_decoded",
        "_spans",
        "child_end",
        "child_start",
        "columns",
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
        layout = lay_out(topology, members)
        self.topology = topology
        self.nodes = layout.nodes
        self.node_names = tuple(node.name for node in self.nodes)
        self.outside = tuple(sorted(outside))
        self.node_domain = layout.node_domain
        self.parent = layout.parent
        self.child_start = layout.child_start
        self.child_end = layout.child_end
        self.leaf_start = layout.leaf_start
        self.leaf_end = layout.leaf_end
        self._codes = layout.codes
        self.node_name_array = np.fromiter(self.node_names, dtype=object, count=len(self.nodes))
        self._decoded = DecodedPaths(self._codes, self.node_domain[-1], self.hostname_is_lowest)
        self.columns = MemberColumns(self)
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
        return self._decoded.paths()

    @property
    def leaf_values(self) -> tuple[tuple[str, ...], ...]:
        """Per leaf, its assignment entry: ``(hostname,)`` for hostname topologies (Kueue writes
        the hostname alone), else its path (see ``leaf_for_values``)."""
        return self._decoded.leaf_values()

    @property
    def node_leaf_path(self) -> ObjectArray:
        """Per member node, the path of its leaf (an array, so per-pod results take one index)."""
        return self._decoded.node_leaf_path()

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
            return None if code is None else int(self._decoded.first_leaf_by_hostname()[code])
        return self.index_of(self.leaf_level, values)

    def node_index(self, name: str) -> int | None:
        return self.columns.names().get(name)

    def node_rows(self, names: Iterable[str]) -> IntArray:
        """Per name, the index of that member node; -1 for names outside the tree."""
        return np.fromiter(map(self.columns.names().get, names, repeat(-1)), dtype=np.int64)

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

    def __repr__(self) -> str:
        shape = " x ".join(f"{self.count(level)}" for level in range(self.depth))
        return f"TopologyTree({self.topology.name!r}, nodes={len(self.nodes)}, domains={shape})"
