"""Per-cycle free capacity of the member nodes of a topology tree, as numpy arrays."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from itertools import count
from operator import attrgetter

import numpy as np

from toposched.model import CPU, MEMORY, PODS, Resources, RunningPod
from toposched.snapshot.capacity import BoolArray, PodShape, eligible, fits_count, level_sums
from toposched.topology import IntArray, TopologyTree


def distinct(items: Iterable[Resources]) -> tuple[list[Resources], IntArray]:
    """The distinct resource maps among ``items``, and per item the index of its own."""
    index: defaultdict[Resources, int] = defaultdict(count().__next__)  # numbered as first seen
    codes = np.fromiter(map(index.__getitem__, items), dtype=np.int64)
    return list(index), codes


def amounts(resources: Sequence[Resources], columns: Mapping[str, int]) -> IntArray:
    """One row per resource map, one column per resource name."""
    matrix = np.zeros((len(resources), len(columns)), dtype=np.int64)
    for row, entry in enumerate(resources):
        for name, amount in entry.items():
            matrix[row, columns[name]] = amount
    return matrix


_CHANGES = 64  # changes a snapshot remembers the rows of


class Snapshot:
    """Free resources per member node: allocatable - running pods - one ``pods`` unit per pod.

    Rows follow ``tree.nodes``; columns are resource names (``resources``). Workload usage is
    added and removed by key, idempotently, so what-if and commit/rollback stay cheap. ``free``
    changes through those methods only: ``version`` counts the changes, so that what a placement
    derives from ``free`` (the engine keeps a node space per snapshot) knows when it is stale.
    """

    __slots__ = ("__weakref__", "_changes", "_columns", "_usage", "free", "tree", "unrequested", "version")

    tree: TopologyTree
    free: IntArray
    # Per row, the running pods that request no cpu (column 0) and no memory (column 1):
    # kube-scheduler's resource scores count such a pod as 100m cpu and 200Mi memory. Set by
    # ``build`` from the pods it is given; workload usage added later is not counted.
    unrequested: IntArray

    def __init__(
        self,
        tree: TopologyTree,
        columns: Mapping[str, int],
        free: IntArray,
        usage: Mapping[str, tuple[IntArray, IntArray]] | None = None,
        unrequested: IntArray | None = None,
    ) -> None:
        """Wrap ready arrays. Use :meth:`build` instead."""
        self.tree = tree
        self.unrequested = (
            unrequested if unrequested is not None else np.zeros((free.shape[0], 2), dtype=np.int64)
        )
        self._columns = dict(columns)
        self.free = free
        # Per workload: the rows it charged and what it took there (one column per resource
        # known when it was charged).
        self._usage: dict[str, tuple[IntArray, IntArray]] = dict(usage or {})
        self.version = 0
        # The latest changes: (version they made, rows whose free amounts they changed; None:
        # every row may have changed, as when a column is added).
        self._changes: list[tuple[int, IntArray | None]] = []

    @classmethod
    def build(cls, tree: TopologyTree, pods: Sequence[RunningPod] = ()) -> Snapshot:
        """Free capacity of ``tree``'s member nodes given the pods already bound to them.

        Pods on nodes outside the tree are ignored (they use no capacity the tree can offer).
        Nodes (and pods) mostly share a few resource shapes: each distinct one is read once and
        the rows are filled by array indexing.
        """
        allocatable, per_node = distinct(map(attrgetter("allocatable"), tree.nodes))
        rows = tree.node_rows(map(attrgetter("node"), pods))
        bound = np.flatnonzero(rows >= 0)
        requests, per_pod = distinct(map(attrgetter("requests"), map(pods.__getitem__, bound.tolist())))
        names = {PODS}.union(*allocatable, *requests)
        columns = {name: i for i, name in enumerate(sorted(names))}
        free = amounts(allocatable, columns)[per_node]
        used = amounts(requests, columns)
        used[:, columns[PODS]] += 1  # the pod's own slot
        np.subtract.at(free, rows[bound], used[per_pod])
        unrequested = np.zeros((tree.node_count, 2), dtype=np.int64)
        lacking = np.ones((len(requests), 2), dtype=np.int64)
        for k, name in enumerate((CPU, MEMORY)):
            if name in columns:
                lacking[:, k] = used[:, columns[name]] == 0
        np.add.at(unrequested, rows[bound], lacking[per_pod])
        unrequested.flags.writeable = False  # shared by clones
        return cls(tree, columns, free, unrequested=unrequested)

    @property
    def resources(self) -> tuple[str, ...]:
        """Column names, in column order."""
        return tuple(sorted(self._columns, key=self._columns.__getitem__))

    @property
    def columns(self) -> Mapping[str, int]:
        return self._columns

    def clone(self) -> Snapshot:
        """An independent copy for what-if placements (the tree is shared, it never changes)."""
        return Snapshot(self.tree, self._columns, self.free.copy(), self._usage, self.unrequested)

    def add_usage(self, key: str, node_usage: Mapping[str, Resources]) -> None:
        """Charge a workload's usage per node name (amounts are subtracted as given, so include
        the ``pods`` slot, as :func:`toposched.engine.usage_of` does). Adding the same key again
        replaces the earlier usage; nodes outside the tree are ignored.

        By rows: the nodes' rows are found in one pass and each distinct usage is read once
        (nodes mostly take the same), so a large gang's commit is a few array operations."""
        self.remove_usage(key)
        rows = self.tree.node_rows(node_usage)
        inside = np.flatnonzero(rows >= 0)
        values = list(node_usage.values())
        if len(inside) < len(values):
            values = [values[i] for i in inside.tolist()]
        shapes, codes = distinct(values)
        for shape in shapes:
            for resource in shape:
                self._ensure_column(resource)
        index = rows[inside]
        matrix = amounts(shapes, self._columns)[codes]
        self.free[index] -= matrix  # one row per node: no row repeats
        self._usage[key] = (index, matrix)
        self._changed(index)

    def remove_usage(self, key: str) -> None:
        """Give back a workload's usage; unknown keys are ignored."""
        entry = self._usage.pop(key, None)
        if entry is None:
            return
        index, matrix = entry
        self.free[index, : matrix.shape[1]] += matrix  # columns added since come last
        self._changed(index)

    def usage_keys(self) -> tuple[str, ...]:
        return tuple(self._usage)

    def free_of(self, node: str) -> Resources:
        """Free resources of one member node (negative amounts mean over-commitment)."""
        row = self.tree.node_index(node)
        if row is None:
            raise KeyError(node)
        return Resources({name: int(self.free[row, col]) for name, col in self._columns.items()})

    def capacity(self, shape: PodShape, free: IntArray | None = None) -> IntArray:
        """Per member node, how many pods of ``shape`` fit (0 where a filter rejects the node)."""
        counts = fits_count(self.free if free is None else free, self._columns, shape.requests)
        mask = eligible(self.tree, shape)
        return counts if mask is None else np.where(mask, counts, 0)

    def level_capacity(self, shape: PodShape) -> list[IntArray]:
        """Per level (coarsest first), how many pods of ``shape`` each domain holds, counted
        node by node (a pod never spans nodes)."""
        return level_sums(self.tree, self.capacity(shape))

    def eligible(self, shape: PodShape) -> BoolArray | None:
        """Nodes that pass taint and selector checks for ``shape`` (None: all of them)."""
        return eligible(self.tree, shape)

    def _ensure_column(self, resource: str) -> None:
        if resource in self._columns:
            return
        self._columns = {**self._columns, resource: len(self._columns)}
        self.free = np.concatenate([self.free, np.zeros((self.free.shape[0], 1), dtype=np.int64)], axis=1)
        self._changed(None)

    def _changed(self, rows: IntArray | None) -> None:
        """A new version: ``rows`` changed (None: any row may have)."""
        self.version += 1
        self._changes.append((self.version, rows))
        if len(self._changes) > _CHANGES:
            del self._changes[0]

    def changed_rows(self, since: int) -> IntArray | None:
        """The rows whose free amounts may differ from what they were at version ``since`` (of
        this snapshot; possibly repeated), or None when that is not known: a column was added
        since, or the change is older than the ones kept."""
        if since == self.version:
            return np.zeros(0, dtype=np.int64)
        later = [rows for version, rows in self._changes if version > since]
        if since > self.version or len(later) != self.version - since or any(r is None for r in later):
            return None
        return np.concatenate([r for r in later if r is not None])

    def __repr__(self) -> str:
        return f"Snapshot({self.tree!r}, resources={list(self.resources)})"
