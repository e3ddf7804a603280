"""kube-scheduler's placement worked out for many candidate placements at once: the answers of
``toposched.engine.kube_placer.KubePlacer`` (each candidate simulated on its own, pod by pod)
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

import numpy as np

from toposched.engine.kube_nodes import segment_sums
from toposched.engine.kube_placer import (
    Candidates,
    KubePlacer,
    Proposed,
    Refusal,
    Trial,
    cannot,
    minimum,
)
from toposched.model import Group
from toposched.topology import IntArray


class EachPlacer(KubePlacer):
    """``KubePlacer`` with every group evaluated in all of its parent's candidates at once."""

    def evaluate(self, group: Group, rows: IntArray, topology: str | None) -> Trial | Refusal:
        return self.evaluate_each(group, Candidates.one("", rows), topology)[0]

    def evaluate_each(self, group: Group, parents: Candidates, topology: str | None) -> list[Trial | Refusal]:
        """``evaluate`` inside each of ``parents`` (disjoint; each parent's own charges only
        touch its nodes, so they may all stand together)."""
        topology = group.topology if group.topology is not None else topology
        found, parent = self.placements(group, parents, self.view(group, topology))
        if group.children:
            trials = self._composite_each(group, found, topology)
        elif len(self.runs(group)) <= 1:
            trials = self._podgroup_each(group, found)
        else:
            trials = [self.simulate(group, name, part, topology) for name, part in found]
        ends = np.searchsorted(parent, np.arange(len(parents) + 1)).tolist()
        results = [self.outcome(group, trials[ends[j] : ends[j + 1]]) for j in range(len(parents))]
        self._fill(group, [r for r in results if isinstance(r, Trial) and r.room is not None])
        return results

    def _podgroup_each(self, group: Group, found: Candidates) -> list[Trial]:
        """A PodGroup of alike pending pods in every candidate, without its pods (``_fill``
        puts the winner's on nodes). A candidate schedules what its nodes take; short of
        minCount, it stopped at the pod that left too few behind."""
        need = minimum(group)
        runs = self.runs(group)
        pending = runs[0] if runs else []
        bound = len(group.pods) - len(pending)
        if bound + len(pending) < need:
            status = cannot(need, bound, len(pending))
            return [Trial(name, False, status, bound, 0, rows=part) for name, part in found]
        rows, starts = found.rows, found.starts
        cols = self.columns(group)
        room = self.nodes.room(pending[0], rows, len(pending)) if pending else np.zeros(len(rows), dtype=np.int64)
        placed = np.minimum(segment_sums(room, starts), len(pending))
        if pending:
            added = placed[:, None] * self.space.ledger.vector(pending[0].requests)[cols]
        else:
            added = np.zeros((len(found), len(cols)), dtype=np.int64)
        fullness = self.nodes.fullness_each(rows, starts, cols, added).tolist()
        trials = []
        bounds = starts.tolist()
        for i, (name, part) in enumerate(found):
            scheduled = bound + int(placed[i])
            status = "" if scheduled >= need else cannot(need, scheduled, need - scheduled - 1)
            trial = Trial(name, not status, status, scheduled, fullness[i], rows=part)
            trial.room = room[bounds[i] : bounds[i + 1]]
            trials.append(trial)
        return trials

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
        room = np.concatenate([trial.room for trial in winners if trial.room is not None])
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
            ledger.charge(where, count, ledger.vector(run[0].requests))
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
            for i, result in zip(going, self.evaluate_each(child, found.subset(going), topology), strict=True):
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
        cols = self.columns(group)
        nothing = np.zeros((len(trials), len(cols)), dtype=np.int64)
        fullness = self.nodes.fullness_each(found.rows, found.starts, cols, nothing).tolist()
        for trial, count, full in zip(trials, done, fullness, strict=True):
            trial.feasible = not trial.status and count >= need
            trial.fullness = full
        ledger.undo(mark)
        return trials
