"""Per-member columns of a topology tree (``tree``) that only some callers read, each derived on
first use and kept with the tree: label value codes, name order, KAI's dotted-id rank of each
domain, the members with scheduling-blocking taints, and the index of each node name."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from toposched.model import Node, Taint, TaintEffect
from toposched.topology.paths import IntArray

if TYPE_CHECKING:
    from toposched.topology.tree import TopologyTree

NOT_READY = Taint("node.kubernetes.io/not-ready", "", TaintEffect.NO_SCHEDULE)
UNSCHEDULABLE = Taint("node.kubernetes.io/unschedulable", "", TaintEffect.NO_SCHEDULE)


def lifecycle_taints(node: Node) -> tuple[Taint, ...]:
    """The NoSchedule taints kube-controller-manager keeps on a NotReady or cordoned node."""
    return ((NOT_READY,) if not node.ready else ()) + ((UNSCHEDULABLE,) if node.unschedulable else ())


class MemberColumns:
    """The derived columns of one tree (it holds this object; the columns go with it)."""

    __slots__ = ("_by_name", "_dotted_rank", "_label_codes", "_node_index", "_taint_groups", "_tree")

    def __init__(self, tree: TopologyTree) -> None:
        self._tree = tree
        self._label_codes: dict[str, tuple[IntArray, dict[str, int]]] = {}
        self._taint_groups: list[tuple[tuple[Taint, ...], IntArray]] | None = None
        self._by_name: tuple[IntArray, tuple[str, ...], npt.NDArray[np.str_]] | None = None
        self._dotted_rank: dict[int, IntArray] = {}
        self._node_index: dict[str, int] | None = None

    def label_codes(self, key: str) -> tuple[IntArray, Mapping[str, int]]:
        """Per member node, an integer code of its value for label ``key`` (-1 when absent)."""
        cached = self._label_codes.get(key)
        if cached is None:
            table: dict[str, int] = {}
            codes = np.fromiter(
                (
                    table.setdefault(n.labels[key], len(table)) if key in n.labels else -1
                    for n in self._tree.nodes
                ),
                dtype=np.int64,
                count=len(self._tree.nodes),
            )
            cached = (codes, table)
            self._label_codes[key] = cached
        return cached

    def by_name(self) -> tuple[IntArray, tuple[str, ...], npt.NDArray[np.str_]]:
        """Member nodes in name order: their indices, their names, and the names as an array
        (what name-ordered views such as the hierarchical solver's node space are built from)."""
        if self._by_name is None:
            names = np.asarray(self._tree.node_names, dtype=np.str_)
            order = np.argsort(names, kind="stable").astype(np.int64)
            ordered = names[order]
            self._by_name = (order, tuple(map(self._tree.node_names.__getitem__, order.tolist())), ordered)
        return self._by_name

    def dotted_rank(self, level: int) -> IntArray:
        """Per domain of ``level``, its rank when domains are ordered by their path values joined
        with dots (KAI's domain id, ``zone1.rack2``), which is not always the path order."""
        cached = self._dotted_rank.get(level)
        if cached is None:
            ids = list(map(".".join, self._tree.paths[level]))
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
            for i, node in enumerate(self._tree.nodes):
                blocking = tuple(t for t in node.taints if t.blocks_scheduling) + lifecycle_taints(node)
                if blocking:
                    groups.setdefault(blocking, []).append(i)
            self._taint_groups = [(taints, np.asarray(idx, dtype=np.int64)) for taints, idx in groups.items()]
        return self._taint_groups

    def names(self) -> dict[str, int]:
        """Node name -> member index, built on first use."""
        if self._node_index is None:
            self._node_index = dict(
                zip(self._tree.node_names, range(len(self._tree.node_names)), strict=True)
            )
        return self._node_index
