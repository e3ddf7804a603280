"""kube-scheduler's node-level rules inside one candidate placement: which node a pod goes to,
and how full a placement is once its pods are in (the scores are ``kube.node_scores``').

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
then name, then copy), done in one sort. ``NodeScores.fullness_each`` scores many placements at
once from their sums.
"""

from __future__ import annotations

import numpy as np

from toposched.engine.core.rowwise import take_rows
from toposched.engine.kube.node_scores import NodeScores
from toposched.engine.kube.scores import taint_scores
from toposched.model import PodSpec
from toposched.topology import IntArray


class KubeNodes(NodeScores):
    """Where kube-scheduler puts pods on a placement's nodes: the Filter (``room``) and the best
    scored node per pod (``pick``), or for a run of identical pods (``fill``)."""

    def pick(self, pod: PodSpec, rows: IntArray) -> int | None:
        """The row of ``rows`` the pod goes to, or None when it fits none."""
        if len(rows) == 0:
            return None
        vec = self.vector(pod.requests)
        ok = self.eligible(pod)[rows]
        ok &= np.all(take_rows(self.space.ledger.free, rows) >= vec, axis=1)
        fit = rows[ok]
        if len(fit) == 0:
            return None
        scores = self.scores(pod, fit, np.zeros(len(fit), dtype=np.int64))
        scores += self.taints(pod, fit)
        best = np.lexsort((self.space.name_rank[fit], -scores))[0]
        return int(fit[best])

    def room(self, pod: PodSpec, rows: IntArray, most: int) -> IntArray:
        """Per row of ``rows``, how many copies of ``pod`` pass ``pick``'s filter there one
        after another, at most ``most``."""
        ledger = self.space.ledger
        vec = self.vector(pod.requests)
        # A row passes when every column, asked or not, is free (>= 0 where nothing is asked).
        ok = self.eligible(pod)[rows] & np.all(take_rows(ledger.free, rows) >= vec, axis=1)
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
        scores = self.scores(pod, rows[owner], copy)
        of = placement[owner]
        falling = bool(np.all((np.diff(scores) <= 0) | (np.diff(owner) != 0))) if len(owner) else True
        if not falling or (self.tainted and len(rows)):
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
            taints = self.taint_counts(pod, rows[mine])
            used = np.zeros(len(mine), dtype=np.int64)
            rank = self.space.name_rank[rows[mine]]
            for _ in range(count):
                open_ = used < room[mine]
                if not np.any(open_):
                    break
                at = np.flatnonzero(open_)
                score = scores[begin[mine[at]] + used[at]] + (taint_scores(taints[at]) if self.tainted else 0)
                best = int(at[np.lexsort((rank[at], -score))[0]])
                used[best] += 1
                chosen.append(int(rows[mine[best]]))
            out.append(len(chosen))
        return np.asarray(chosen, dtype=np.int64), np.asarray(out, dtype=np.int64)
