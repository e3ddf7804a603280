"""kube-scheduler's scores over one candidate placement's nodes (split from ``kube.nodes``,
which decides where pods go): the default profile's NodeResourcesFit (``LeastAllocated``),
NodeResourcesBalancedAllocation and TaintToleration per pod and node, and ``MostAllocated`` over
a whole placement (``fullness``). Requests count as the scores count them (``kube.scores``:
non-zero cpu and memory), running pods through ``Snapshot.unrequested``, charged pods through
the ledger's ``COUNTED`` columns.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import partial
from operator import attrgetter

import numpy as np

from toposched.engine.core.caches import Slot
from toposched.engine.core.rowwise import take_rows
from toposched.engine.core.space import NodeSpace
from toposched.engine.kube.scores import (
    NON_ZERO,
    SCORED,
    balanced,
    least_allocated,
    most_allocated,
    non_zero,
    taint_scores,
)
from toposched.model import PodSpec, Resources, Taint, TaintEffect
from toposched.snapshot import BoolArray, Snapshot
from toposched.snapshot.snapshot import distinct
from toposched.topology import IntArray, TopologyTree

# Ledger columns of what the scores count beyond a charged pod's cpu and memory requests (100m
# for a pod asking no cpu, 200Mi for one asking no memory). Each starts at ``UNLIMITED`` free, so
# no pod is kept off a node by them; the amount charged is UNLIMITED less the free amount.
COUNTED = ("toposched.kube/counted-cpu", "toposched.kube/counted-memory")
UNLIMITED = 2**60


class NodeScores:
    """Allocatable amounts beside a ``NodeSpace``'s free ones, and kube-scheduler's scores of a
    pod on a node (``scores``) and of a whole placement (``fullness``) read from them."""

    def __init__(self, space: NodeSpace, snapshots: Iterable[Snapshot], pods: Iterable[PodSpec]) -> None:
        self.space = space
        ledger = space.ledger
        created = [name for name in COUNTED if name not in ledger.columns]
        ledger.vector(Resources(dict.fromkeys((*SCORED, *COUNTED), 1)))  # the columns exist
        for name in created:
            ledger.free[:, ledger.columns[name]] = UNLIMITED  # a new column: the ledger owns it
        self._augmented: dict[Resources, Resources] = {}
        for pod in pods:  # every column a pod asks for exists before the matrix is read
            self.vector(pod.requests)
        self.cols = np.asarray([ledger.columns[name] for name in SCORED], dtype=np.int64)
        self.counted = np.asarray([ledger.columns[name] for name in COUNTED], dtype=np.int64)
        self.allocatable: IntArray = np.zeros_like(ledger.free)
        self.unrequested: IntArray = np.zeros((space.size, len(SCORED)), dtype=np.int64)  # as non-zero
        self.preferred: list[tuple[Taint, ...]] = [()] * space.size  # PreferNoSchedule taints
        filled = np.zeros(space.size, dtype=np.bool_)
        for snap in snapshots:  # a node in several snapshots: the first one's
            tree = snap.tree
            if tree.node_names == space.names[: tree.node_count]:  # the main snapshot's rows
                rows = np.arange(tree.node_count, dtype=np.int64)
            else:
                rows = np.fromiter((space.row.get(n, -1) for n in tree.node_names), dtype=np.int64)
            kinds, per_node = space.caches.per_tree(tree, _ALLOCATABLE, None, partial(_allocatable, tree))
            matrix = np.zeros((len(kinds), len(ledger.columns)), dtype=np.int64)
            for kind, resources in enumerate(kinds):
                for resource, amount in resources.items():
                    column = ledger.columns.get(resource)
                    if column is not None:
                        matrix[kind, column] = amount
            new = rows >= 0
            new[new] = ~filled[rows[new]]
            self.allocatable[rows[new]] = matrix[per_node[new]]
            self.unrequested[rows[new]] = snap.unrequested[new] * NON_ZERO
            for row, node in zip(rows[new].tolist(), np.flatnonzero(new).tolist(), strict=True):
                self.preferred[row] = _preferred(tree, node)
            filled[rows[new]] = True
        self.tainted = any(self.preferred)

    # -- one pod ---------------------------------------------------------------------------------

    def vector(self, requests: Resources) -> IntArray:
        """A pod's charge in the ledger: its requests and what the scores count beyond them."""
        augmented = self._augmented.get(requests)
        if augmented is None:
            asked = np.asarray([requests.get(name) for name in SCORED], dtype=np.int64)
            beyond = (non_zero(asked) - asked).tolist()
            augmented = self._augmented[requests] = Resources(
                {**requests, **dict(zip(COUNTED, beyond, strict=True))}
            )
        return self.space.ledger.vector(augmented)

    def requests(self, pod: PodSpec) -> tuple[IntArray, IntArray]:
        """The pod's cpu and memory requests: actual, and as the scores count them."""
        actual = self.space.ledger.vector(pod.requests)[self.cols]
        return actual, non_zero(actual)

    def scores(self, pod: PodSpec, rows: IntArray, copies: IntArray) -> IntArray:
        """LeastAllocated + BalancedAllocation of ``pod`` on each of ``rows`` with ``copies``
        more of it there already (rows may repeat)."""
        actual, counted = self.requests(pod)
        alloc = take_rows(self.allocatable, rows)[:, self.cols]
        free = take_rows(self.space.ledger.free, rows)
        used = alloc - free[:, self.cols] + copies[:, None] * actual
        counted_used = used + self._beyond(rows, free) + copies[:, None] * (counted - actual)
        scores: IntArray = least_allocated(counted_used + counted, alloc) + balanced(used, actual, alloc)
        return scores

    def taints(self, pod: PodSpec, rows: IntArray) -> IntArray:
        if not self.tainted:
            return np.zeros(len(rows), dtype=np.int64)
        return taint_scores(self.taint_counts(pod, rows))

    def taint_counts(self, pod: PodSpec, rows: IntArray) -> IntArray:
        """Per row, its PreferNoSchedule taints ``pod`` does not tolerate."""
        tolerations = pod.tolerations
        return np.fromiter(
            (
                sum(not any(t.tolerates(taint) for t in tolerations) for taint in self.preferred[row])
                for row in rows.tolist()
            ),
            dtype=np.int64,
            count=len(rows),
        )

    # -- one placement ---------------------------------------------------------------------------

    def fullness(self, rows: IntArray) -> int:
        """``MostAllocated`` over all of ``rows`` together: 0 (empty) to 100 (full)."""
        if len(rows) == 0:
            return 0
        whole = np.asarray([0, len(rows)], dtype=np.int64)
        return int(self.fullness_each(rows, whole, np.zeros((1, len(self.cols)), dtype=np.int64))[0])

    def fullness_each(self, rows: IntArray, starts: IntArray, added: IntArray) -> IntArray:
        """``fullness`` of many placements at once: placement i holds ``rows[starts[i]:starts[i
        + 1]]`` (``starts`` ends with ``len(rows)``) and ``added[i]`` more cpu and memory
        requested (pods proposed there, not charged, counted non-zero)."""
        alloc = take_rows(self.allocatable, rows)[:, self.cols]
        free = take_rows(self.space.ledger.free, rows)
        used = alloc - free[:, self.cols] + self._beyond(rows, free)
        return most_allocated(segment_sums(used, starts) + added, segment_sums(alloc, starts))

    def _beyond(self, rows: IntArray, free: IntArray) -> IntArray:
        """Per row, what the scores count beyond the requests of its pods: the running pods'
        (``Snapshot.unrequested``) and the charged pods' (the ``COUNTED`` columns)."""
        beyond: IntArray = take_rows(self.unrequested, rows) + (UNLIMITED - free[:, self.counted])
        return beyond

    def eligible(self, pod: PodSpec) -> BoolArray:
        return self.space.eligible(pod.tolerations, tuple(sorted(pod.node_selector.items())))


_ALLOCATABLE: Slot[tuple[tuple[Resources, ...], IntArray]] = Slot("allocatable maps")


def _allocatable(tree: TopologyTree) -> tuple[tuple[Resources, ...], IntArray]:
    """The distinct allocatable maps of ``tree``'s nodes, and per node the index of its own
    (read-only: every caller shares them). Depends on the tree only: kept per tree."""
    kinds, per_node = distinct(map(attrgetter("allocatable"), tree.nodes))
    per_node.flags.writeable = False
    return tuple(kinds), per_node


def _preferred(tree: TopologyTree, node: int) -> tuple[Taint, ...]:
    return tuple(t for t in tree.nodes[node].taints if t.effect is TaintEffect.PREFER_NO_SCHEDULE)


def segment_sums(values: IntArray, starts: IntArray) -> IntArray:
    """Sums of ``values[starts[i]:starts[i + 1]]`` along the first axis (empty segments: 0)."""
    total = np.zeros((len(values) + 1, *values.shape[1:]), dtype=np.int64)
    np.cumsum(values, axis=0, out=total[1:])
    sums: IntArray = total[starts[1:]] - total[starts[:-1]]
    return sums
