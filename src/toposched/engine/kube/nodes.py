"""kube-scheduler's node-level rules inside one candidate placement: which node a pod goes to,
and how full a placement is once its pods are in (the scores are ``kube.scores``').

Per pod (the ordinary Filter and Score run on the placement's nodes): a node passes when the
pod tolerates its taints, matches its selector and fits in its free capacity (the ``pods`` slot
included), as the engine's capacity encodes everywhere. Of the nodes that pass, the pod takes
the one the default profile scores highest: NodeResourcesFit (``LeastAllocated``) plus
NodeResourcesBalancedAllocation over cpu and memory, plus TaintToleration (PreferNoSchedule
taints). kube-scheduler picks at random among equal nodes; here the first node by name wins.
The other default score plugins score every node alike for the pods the engine knows (no
images, affinities or spreading constraints) and change no choice.

Per placement (``NodeResourcesFit`` as placement scorer, ``MostAllocated``): cpu and memory
requested over the placement's nodes after the proposed pods, against their allocatable.

Requests count as kube-scheduler's scores count them: a pod asking no cpu as 100m, no memory as
200Mi (``kube.scores.non_zero``). Running pods are counted by ``Snapshot.unrequested``; the
pods a placement charges carry what they count beyond their requests in two columns of the
ledger of their own (``COUNTED``), so a charge and its undo keep it with the rest.

``pick`` places one pod (the readable rule). ``fill`` places a run of identical pods at once:
charging a pod only changes its own node's scores, so each node has a sequence of scores for
its 1st, 2nd, ... copy; the pods take the best next copy one after another (``_greedy``). When
every sequence falls (the usual case) that is the nodes' sequences merged best first (score,
then name, then copy), done in one sort. ``fullness_each`` scores many placements at once from
their sums.
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


class KubeNodes:
    """Allocatable amounts beside a ``NodeSpace``'s free ones, for kube-scheduler's scores."""

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
        self._tainted = any(self.preferred)

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

    def pick(self, pod: PodSpec, rows: IntArray) -> int | None:
        """The row of ``rows`` the pod goes to, or None when it fits none."""
        if len(rows) == 0:
            return None
        vec = self.vector(pod.requests)
        ok = self._eligible(pod)[rows]
        ok &= np.all(take_rows(self.space.ledger.free, rows) >= vec, axis=1)
        fit = rows[ok]
        if len(fit) == 0:
            return None
        scores = self._scores(pod, fit, np.zeros(len(fit), dtype=np.int64))
        scores += self._taints(pod, fit)
        best = np.lexsort((self.space.name_rank[fit], -scores))[0]
        return int(fit[best])

    def room(self, pod: PodSpec, rows: IntArray, most: int) -> IntArray:
        """Per row of ``rows``, how many copies of ``pod`` pass ``pick``'s filter there one
        after another, at most ``most``."""
        ledger = self.space.ledger
        vec = self.vector(pod.requests)
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
        scores = self._scores(pod, rows[owner], copy)
        of = placement[owner]
        falling = bool(np.all((np.diff(scores) <= 0) | (np.diff(owner) != 0))) if len(owner) else True
        if not falling or (self._tainted and len(rows)):
            return self._greedy(pod, counts, rows, room, placement, scores)
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

    def _greedy(
        self,
        pod: PodSpec,
        counts: IntArray,
        rows: IntArray,
        room: IntArray,
        placement: IntArray,
        scores: IntArray,
    ) -> tuple[IntArray, IntArray]:
        """``fill_each`` one pod at a time: each takes the row whose next copy scores best
        (``scores`` holds every row's copies in order); the TaintToleration score is normalised
        over the rows that still have room, as kube-scheduler normalises over the nodes that pass."""
        chosen: list[int] = []
        out = [0]
        begin = np.concatenate([[0], np.cumsum(room)])
        for i, count in enumerate(counts.tolist()):
            mine = np.flatnonzero(placement == i)
            taints = self._taint_counts(pod, rows[mine])
            used = np.zeros(len(mine), dtype=np.int64)
            rank = self.space.name_rank[rows[mine]]
            for _ in range(count):
                open_ = used < room[mine]
                if not np.any(open_):
                    break
                at = np.flatnonzero(open_)
                score = scores[begin[mine[at]] + used[at]] + (
                    taint_scores(taints[at]) if self._tainted else 0
                )
                best = int(at[np.lexsort((rank[at], -score))[0]])
                used[best] += 1
                chosen.append(int(rows[mine[best]]))
            out.append(len(chosen))
        return np.asarray(chosen, dtype=np.int64), np.asarray(out, dtype=np.int64)

    def _scores(self, pod: PodSpec, rows: IntArray, copies: IntArray) -> IntArray:
        """LeastAllocated + BalancedAllocation of ``pod`` on each of ``rows`` with ``copies``
        more of it there already (rows may repeat)."""
        actual, counted = self.requests(pod)
        alloc = take_rows(self.allocatable, rows)[:, self.cols]
        free = take_rows(self.space.ledger.free, rows)
        used = alloc - free[:, self.cols] + copies[:, None] * actual
        counted_used = used + self._beyond(rows, free) + copies[:, None] * (counted - actual)
        scores: IntArray = least_allocated(counted_used + counted, alloc) + balanced(used, actual, alloc)
        return scores

    def _taints(self, pod: PodSpec, rows: IntArray) -> IntArray:
        if not self._tainted:
            return np.zeros(len(rows), dtype=np.int64)
        return taint_scores(self._taint_counts(pod, rows))

    def _taint_counts(self, pod: PodSpec, rows: IntArray) -> IntArray:
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

    def _eligible(self, pod: PodSpec) -> BoolArray:
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
