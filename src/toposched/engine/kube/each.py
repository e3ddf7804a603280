"""kube-scheduler's placement worked out for many candidate placements at once: the answers of
``toposched.engine.kube.placer.KubePlacer`` (each candidate simulated on its own, pod by pod)
with array work.

- Candidate placements never share a node and each is simulated from the same capacity (the
  one before is undone), so a group is evaluated inside *every* candidate of its parent at
  once (``EachPlacer.evaluate_each``): a CompositePodGroup's children go in order, each in all
  of the parent's candidates still going, the winners of one child charged before the next.
- A PodGroup whose pending pods are alike (the usual case) needs no simulation: in index order
  each pod takes a node while one has room, so a candidate schedules as many pods as its nodes
  take (``KubeNodes.room``) and ends as full as what they charge makes it, wherever they go.
  Only the winner's pods are put on nodes (``KubeNodes.fill``, the order ``pick`` takes).
- Other PodGroups are simulated per candidate, run by run of alike pods.
"""

from __future__ import annotations

from itertools import groupby
from operator import attrgetter

import numpy as np

from toposched.engine.core.space import NodeSpace
from toposched.engine.kube.node_scores import segment_sums
from toposched.engine.kube.nodes import KubeNodes
from toposched.engine.kube.placer import (
    Candidates,
    GroupError,
    KubePlacer,
    Proposed,
    Refusal,
    Trial,
    cannot,
    minimum,
    pending_pods,
    refusal,
)
from toposched.model import Group, PodSpec
from toposched.topology import IntArray


class EachPlacer(KubePlacer):
    """``KubePlacer`` with every group evaluated in all of its parent's candidates at once."""

    def __init__(self, space: NodeSpace, nodes: KubeNodes) -> None:
        super().__init__(space, nodes)
        self._runs: dict[int, list[list[PodSpec]]] = {}  # by id, as ``columns``

    def runs(self, group: Group) -> list[list[PodSpec]]:
        """A PodGroup's pending pods in index order, cut into runs of alike pods."""
        found = self._runs.get(id(group))
        if found is None:
            runs = groupby(pending_pods(group), key=attrgetter("shape"))
            found = self._runs[id(group)] = [list(run) for _, run in runs]
        return found

    def evaluate(self, group: Group, rows: IntArray, topology: str | None) -> Trial | Refusal:
        mark = self.space.ledger.mark()
        try:
            return self.evaluate_each(group, Candidates.one("", rows), topology)[0]
        except GroupError:
            # Groups are reached child by child here, candidate by candidate there: with two
            # failing groups, which one fails first is the one-at-a-time order's answer.
            self.space.ledger.undo(mark)
            return super().evaluate(group, rows, topology)

    def evaluate_each(self, group: Group, parents: Candidates, topology: str | None) -> list[Trial | Refusal]:
        """``evaluate`` inside each of ``parents`` (disjoint; each parent's own charges only
        touch its nodes, so they may all stand together)."""
        topology = group.topology if group.topology is not None else topology
        found, parent = self.placements(group, parents, self.view(group, topology))
        ends = np.searchsorted(parent, np.arange(len(parents) + 1))
        if group.is_leaf and len(self.runs(group)) <= 1:
            return self._podgroup_each(group, found, parent, ends)
        if group.children:
            trials = self._composite_each(group, found, topology)
        else:
            trials = [self.simulate(group, name, part, topology) for name, part in found]
        bounds = ends.tolist()
        return [self.outcome(group, trials[bounds[j] : bounds[j + 1]]) for j in range(len(parents))]

    def _podgroup_each(
        self, group: Group, found: Candidates, parent: IntArray, ends: IntArray
    ) -> list[Trial | Refusal]:
        """``outcome`` of a PodGroup of alike pending pods in every candidate, candidate
        ``i`` inside parent ``parent[i]`` (parent ``j``'s are ``ends[j]`` to ``ends[j + 1]``).
        A candidate schedules what its nodes take; short of minCount, it stopped at the pod
        that left too few behind. The winners' pods are put on nodes together (``_fill``)."""
        need = minimum(group)
        runs = self.runs(group)
        pending = runs[0] if runs else []
        bound = len(group.pods) - len(pending)
        rows, starts = found.rows, found.starts
        if pending and bound + len(pending) >= need:
            room = self.nodes.room(pending[0], rows, len(pending))
            placed = np.minimum(segment_sums(room, starts), len(pending))
        else:  # nothing to place, or minCount out of reach before the first pod
            room = np.zeros(len(rows), dtype=np.int64)
            placed = np.zeros(len(found), dtype=np.int64)
        scheduled = bound + placed
        feasible = scheduled >= need
        counted = self.nodes.requests(pending[0])[1] if pending else np.zeros(2, dtype=np.int64)
        fullness = self.nodes.fullness_each(rows, starts, placed[:, None] * counted)
        # ``choose`` in every parent: PodGroupPodsCount against the parent's best, plus fullness;
        # the first candidate (by name) of the highest score.
        best = np.zeros(len(ends) - 1, dtype=np.int64)
        np.maximum.at(best, parent, np.where(feasible, scheduled, 0))
        theirs = best[parent]  # the best of each candidate's parent
        score = np.where(theirs > 0, scheduled * 100 // np.maximum(theirs, 1), 0) + fullness
        order = np.lexsort((-score, ~feasible, parent))  # stable: name order kept among equals
        most = np.zeros(len(ends) - 1, dtype=np.int64)
        np.maximum.at(most, parent, scheduled)
        results: list[Trial | Refusal] = []
        winners: list[Trial] = []
        for j, (lo, hi) in enumerate(zip(ends[:-1].tolist(), ends[1:].tolist(), strict=True)):
            if lo < hi and feasible[order[lo]]:
                i = int(order[lo])
                a, b = int(starts[i]), int(starts[i + 1])
                trial = Trial(
                    found.names[i], True, "", int(scheduled[i]), int(fullness[i]), [], rows[a:b], room[a:b]
                )
                winners.append(trial)
                results.append(trial)
                continue
            status = None
            if lo < hi:
                first = int(scheduled[lo])
                reachable = bound + len(pending) >= need
                status = (
                    cannot(need, first, need - first - 1) if reachable else cannot(need, bound, len(pending))
                )
            results.append(refusal(group, hi - lo, status, int(most[j])))
        self._fill(group, winners)
        return results

    def _fill(self, group: Group, winners: list[Trial]) -> None:
        """Put the pods ``_podgroup_each`` scheduled in each of ``winners`` (in different
        parents) on the nodes ``pick`` gives them."""
        runs = self.runs(group)
        if not runs or not winners:
            return
        pending = runs[0]
        bound = len(group.pods) - len(pending)
        counts = np.asarray([trial.scheduled - bound for trial in winners], dtype=np.int64)
        starts = np.zeros(len(winners) + 1, dtype=np.int64)
        np.cumsum([len(trial.rows) for trial in winners], out=starts[1:])
        rows = np.concatenate([trial.rows for trial in winners])
        rooms = [trial.room for trial in winners if trial.room is not None]
        assert len(rooms) == len(winners), "every winner of an alike-pod group carries its room"
        room = np.concatenate(rooms)
        at, begins = self.nodes.fill_each(pending[0], counts, rows, starts, room)
        chosen, bounds = at.tolist(), begins.tolist()
        for i, trial in enumerate(winners):
            mine = chosen[bounds[i] : bounds[i + 1]]  # no more than the pending pods
            trial.pods = [(group.name, pod, row) for pod, row in zip(pending, mine, strict=False)]

    def _podgroup(self, group: Group, name: str, rows: IntArray) -> Trial:
        """Run by run of alike pods in index order (each pod of a run takes a node while one
        has room); the ledger keeps the pods placed (``simulate`` undoes)."""
        need = minimum(group)
        runs = self.runs(group)
        remaining = sum(map(len, runs))
        scheduled = len(group.pods) - remaining
        trial = Trial(name, False, "", scheduled, 0)
        if scheduled + remaining < need:
            trial.status = cannot(need, scheduled, remaining)
            return trial
        ledger = self.space.ledger
        for run in runs:
            room = self.nodes.room(run[0], rows, len(run))
            placed = min(len(run), int(room.sum()))
            scheduled += placed
            remaining -= len(run)
            if scheduled + remaining < need:  # it stopped at a pod of this run that fit nowhere
                trial.status = cannot(need, scheduled, need - scheduled - 1)
                break
            at = self.nodes.fill(run[0], placed, rows, room)
            where, count = np.unique(at, return_counts=True)
            ledger.charge(where, count, self.nodes.vector(run[0].requests))
            trial.pods += [(group.name, pod, row) for pod, row in zip(run, at.tolist(), strict=False)]
        trial.scheduled = scheduled
        trial.feasible = not trial.status and scheduled >= need
        return trial

    def _composite_each(self, group: Group, found: Candidates, topology: str | None) -> list[Trial]:
        """A CompositePodGroup in every candidate: children in order, each in the candidates
        still going, keeping its best placement there for the next; no backtracking."""
        need = minimum(group)
        children = group.children
        trials = [Trial(name, False, "", 0, 0, rows=part) for name, part in found]
        ledger = self.space.ledger
        mark = ledger.mark()
        done = [0] * len(trials)
        going = list(range(len(trials)))
        if len(children) < need:
            for trial in trials:
                trial.status = cannot(need, 0, len(children))
            going = []
        for k, child in enumerate(children):
            if not going:
                break
            remaining = len(children) - k - 1
            still = []
            proposed: list[Proposed] = []
            for i, result in zip(
                going, self.evaluate_each(child, found.subset(going), topology), strict=True
            ):
                trial = trials[i]
                if isinstance(result, Trial):
                    proposed += result.pods
                    trial.pods += result.pods
                    trial.scheduled += result.scheduled
                    done[i] += 1
                if done[i] + remaining < need:
                    trial.status = cannot(need, done[i], remaining)
                else:
                    still.append(i)
            self.commit(proposed)  # the parents' nodes are apart: each sees its own charges only
            going = still
        nothing = np.zeros((len(trials), 2), dtype=np.int64)  # the children's pods are charged
        fullness = self.nodes.fullness_each(found.rows, found.starts, nothing).tolist()
        for trial, count, full in zip(trials, done, fullness, strict=True):
            trial.feasible = not trial.status and count >= need
            trial.fullness = full
        ledger.undo(mark)
        return trials
