"""kube-scheduler's node-level rules inside one candidate placement: which node a pod goes to,
and how full a placement is once its pods are in.

Per pod (the ordinary Filter and Score run on the placement's nodes): a node passes when the
pod tolerates its taints, matches its selector and fits in its free capacity (the ``pods`` slot
included), as the engine's capacity encodes everywhere. Of the nodes that pass, the pod takes
the one the default profile's ``NodeResourcesFit`` scores highest with its default
``LeastAllocated`` strategy: per resource ``(free - request) * 100 // allocatable``, averaged
with weight 1 each. kube-scheduler picks at random among equal nodes; here the first node by
name wins. The other default score plugins (image locality, balanced allocation, spreading,
affinity) are not modelled: the engine knows no images, affinities or spreading constraints.

Per placement (``NodeResourcesFit`` as placement scorer, always ``MostAllocated``): per resource
``(allocatable - free) * 100 // allocatable`` summed over the placement's nodes after the
proposed pods, averaged with weight 1 each: the fullest placement scores highest.

Both scores read the resources the group's pods request (``pods`` slot aside). kube-scheduler's
default list is cpu and memory; pods that ask only for accelerators would tie on every node and
every rack under it, so the requested resources are the ones that separate the candidates.

``pick`` places one pod (the readable rule). ``fill`` places a run of identical pods at once:
charging a pod only lowers its own node's score, so each node's scores for its 1st, 2nd, ...
copy fall, and the nodes' sequences merged best first (score, then name, then copy) are the
order ``pick`` would take them in one at a time. ``fullness_each`` scores many placements at
once from their sums (the used amounts grow by what the pods charge, wherever they go).
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import partial
from operator import attrgetter

import numpy as np

from toposched.engine.caches import Slot
from toposched.engine.rowwise import take_rows
from toposched.engine.space import NodeSpace
from toposched.model import PODS, PodSpec, Resources
from toposched.snapshot import BoolArray, Snapshot
from toposched.snapshot.snapshot import distinct
from toposched.topology import IntArray, TopologyTree

MAX_SCORE = 100  # kube-scheduler's MaxNodeScore


class KubeNodes:
    """Allocatable amounts beside a ``NodeSpace``'s free ones, for kube-scheduler's scores."""

    def __init__(self, space: NodeSpace, snapshots: Iterable[Snapshot], pods: Iterable[PodSpec]) -> None:
        self.space = space
        ledger = space.ledger
        for pod in pods:  # every column a pod asks for exists before the matrix is read
            ledger.vector(pod.requests)
        self.allocatable: IntArray = np.zeros_like(ledger.free)
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
            filled[rows[new]] = True
        self._scored: dict[Resources, IntArray] = {}

    def columns(self, requests: Iterable[Resources]) -> IntArray:
        """The ledger columns of the resources these requests ask for (``pods`` slot aside)."""
        columns = self.space.ledger.columns
        names = sorted({name for r in requests for name, amount in r.items() if amount > 0 and name != PODS})
        return np.asarray([columns[name] for name in names if name in columns], dtype=np.int64)

    def scored(self, requests: Resources) -> IntArray:
        """``columns`` of one pod's requests: the resources its node score reads (kept)."""
        found = self._scored.get(requests)
        if found is None:
            found = self._scored[requests] = self.columns([requests])
        return found

    def pick(self, pod: PodSpec, rows: IntArray) -> int | None:
        """The row of ``rows`` the pod goes to, or None when it fits none."""
        if len(rows) == 0:
            return None
        ledger = self.space.ledger
        vec = ledger.vector(pod.requests)
        ok = self._eligible(pod)[rows]
        ok &= np.all(take_rows(ledger.free, rows) >= vec, axis=1)
        fit = rows[ok]
        if len(fit) == 0:
            return None
        cols = self.scored(pod.requests)
        if len(cols) == 0:
            scores: IntArray = np.zeros(len(fit), dtype=np.int64)
        else:
            scores = _score(
                take_rows(ledger.free, fit)[:, cols] - vec[cols], take_rows(self.allocatable, fit)[:, cols]
            )
        best = np.lexsort((self.space.name_rank[fit], -scores))[0]
        return int(fit[best])

    def room(self, pod: PodSpec, rows: IntArray, most: int) -> IntArray:
        """Per row of ``rows``, how many copies of ``pod`` pass ``pick``'s filter there one
        after another, at most ``most``."""
        ledger = self.space.ledger
        vec = ledger.vector(pod.requests)
        # A row passes when every column, asked or not, is free (>= 0 where nothing is asked).
        ok = self._eligible(pod)[rows] & np.all(take_rows(ledger.free, rows) >= vec, axis=1)
        room: IntArray = np.where(ok, np.minimum(ledger.copies(rows, vec), most), 0)
        return room

    def fill(self, pod: PodSpec, count: int, rows: IntArray, room: IntArray | None = None) -> IntArray:
        """The rows the next ``count`` copies of ``pod`` go to, in order, as ``pick`` chooses
        them one at a time with each charged (fewer when room runs out). ``room``: ``room(pod,
        rows, count)`` when the caller has it. Nothing is charged."""
        if room is None:
            room = self.room(pod, rows, count)
        whole = np.asarray([0, len(rows)], dtype=np.int64)
        return self.fill_each(pod, np.asarray([count], dtype=np.int64), rows, whole, room)[0]

    def fill_each(
        self, pod: PodSpec, counts: IntArray, rows: IntArray, starts: IntArray, room: IntArray
    ) -> tuple[IntArray, IntArray]:
        """``fill`` in several placements at once: ``counts[i]`` copies in the placement of
        ``rows[starts[i]:starts[i + 1]]``, ``room`` as ``room`` gives it. Returns the rows,
        placement after placement, and where each placement's rows begin (as ``starts``)."""
        placement = np.repeat(np.arange(len(counts), dtype=np.int64), np.diff(starts))
        taken = room > 0
        rows, room, placement = rows[taken], room[taken], placement[taken]
        owner = np.repeat(np.arange(len(rows), dtype=np.int64), room)  # one entry per copy
        copy = np.arange(len(owner), dtype=np.int64) - np.repeat(np.cumsum(room) - room, room)
        cols = self.scored(pod.requests)
        if len(cols) == 0:
            scores: IntArray = np.zeros(len(owner), dtype=np.int64)
        else:
            ledger = self.space.ledger
            charged = (copy + 1)[:, None] * ledger.vector(pod.requests)[cols]
            scores = _score(
                take_rows(ledger.free, rows)[:, cols][owner] - charged,
                take_rows(self.allocatable, rows)[:, cols][owner],
            )
        of = placement[owner]
        order = np.lexsort((copy, self.space.name_rank[rows][owner], -scores, of))
        # Each placement's copies are one block of ``order``, best first: keep its first counts.
        begins = np.zeros(len(counts) + 1, dtype=np.int64)
        np.cumsum(np.bincount(of, minlength=len(counts)), out=begins[1:])
        kept = np.minimum(np.diff(begins), counts)
        rank = np.arange(len(order), dtype=np.int64) - np.repeat(begins[:-1], np.diff(begins))
        chosen: IntArray = rows[owner[order[rank < np.repeat(kept, np.diff(begins))]]]
        out = np.zeros(len(counts) + 1, dtype=np.int64)
        np.cumsum(kept, out=out[1:])
        return chosen, out

    def fullness(self, rows: IntArray, cols: IntArray) -> int:
        """``MostAllocated`` over all of ``rows`` together: 0 (empty) to 100 (full)."""
        if len(rows) == 0 or len(cols) == 0:
            return 0
        alloc = take_rows(self.allocatable, rows)[:, cols].sum(axis=0)
        return int(_summed_score(alloc - take_rows(self.space.ledger.free, rows)[:, cols].sum(axis=0), alloc))

    def fullness_each(self, rows: IntArray, starts: IntArray, cols: IntArray, added: IntArray) -> IntArray:
        """``fullness`` of many placements at once: placement i holds ``rows[starts[i]:starts[i
        + 1]]`` (``starts`` ends with ``len(rows)``) and ``added[i]`` more used per column of
        ``cols`` (pods proposed there, not charged)."""
        if len(cols) == 0:
            return np.zeros(len(starts) - 1, dtype=np.int64)
        alloc = segment_sums(take_rows(self.allocatable, rows)[:, cols], starts)
        used = alloc - segment_sums(take_rows(self.space.ledger.free, rows)[:, cols], starts) + added
        return _summed_score(used, alloc)

    def _eligible(self, pod: PodSpec) -> BoolArray:
        return self.space.eligible(pod.tolerations, tuple(sorted(pod.node_selector.items())))


_ALLOCATABLE: Slot[tuple[tuple[Resources, ...], IntArray]] = Slot("allocatable maps")


def _allocatable(tree: TopologyTree) -> tuple[tuple[Resources, ...], IntArray]:
    """The distinct allocatable maps of ``tree``'s nodes, and per node the index of its own
    (read-only: every caller shares them). Depends on the tree only: kept per tree."""
    kinds, per_node = distinct(map(attrgetter("allocatable"), tree.nodes))
    per_node.flags.writeable = False
    return tuple(kinds), per_node


def _score(part: IntArray, alloc: IntArray) -> IntArray:
    """kube-scheduler's resource score over the last axis: ``part * 100 // allocatable`` per
    resource (0 without allocatable), averaged with weight 1 each. ``part`` is what is left
    (``LeastAllocated``) or what is used (``MostAllocated``)."""
    per = np.where(alloc > 0, part * MAX_SCORE // np.maximum(alloc, 1), 0)
    scores: IntArray = per.sum(axis=-1) // alloc.shape[-1]
    return scores


def _summed_score(part: IntArray, alloc: IntArray) -> IntArray:
    """``_score`` of amounts summed over many nodes, in Python integers: a cluster's memory in
    bytes times 100 can pass int64 (100k nodes of 2 TiB)."""
    scores: IntArray = np.asarray(_score(part.astype(object), alloc.astype(object)), dtype=np.int64)
    return scores


def segment_sums(values: IntArray, starts: IntArray) -> IntArray:
    """Sums of ``values[starts[i]:starts[i + 1]]`` along the first axis (empty segments: 0)."""
    total = np.zeros((len(values) + 1, *values.shape[1:]), dtype=np.int64)
    np.cumsum(values, axis=0, out=total[1:])
    sums: IntArray = total[starts[1:]] - total[starts[:-1]]
    return sums
