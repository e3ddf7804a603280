"""kube-scheduler's placement of PodGroups and CompositePodGroups (``Semantics.KUBE``).

The gang's root is a container; each child is one PodGroup (a leaf: ``required`` = the label
key of its topology constraint or None, ``min_member`` = minCount, 1 for basic) or one
CompositePodGroup (children of its own, ``min_sub_group`` = minGroupCount, None for basic: one
child). As kube-scheduler does it (``schedule_one_podgroup.go``):

1. Pods already bound (``PodSpec.node``) are charged first and count as scheduled.
2. Candidate placements of a group, inside its parent's placement: one per value of its key's
   label among the nodes that carry it (nodes without the label are never used), named by the
   value; no key: one placement of every node. Bound pods pin the group to the value of their
   nodes (refused when they sit in two values or on a node without the label).
3. A PodGroup is simulated in each placement pod by pod, in index order, each pod on the node
   ``KubeNodes.pick`` chooses; a pod that fits nowhere does not fail the placement while
   minCount stays reachable (scheduled + remaining >= minCount, else it stops early). The
   placement qualifies when scheduled (bound included) >= minCount. Pods beyond the minimum are
   placed when they fit; the others stay pending (left out of ``Placement.pods``).
4. A CompositePodGroup is simulated in each of its placements by placing its children in order,
   greedily, each one choosing its own best placement inside and keeping it for the next; a
   child that fails is dropped, never revisited (no sibling backtracking). The placement
   qualifies when minGroupCount children succeed.
5. The winner among qualifying placements has the highest score: ``PodGroupPodsCount`` (pods
   scheduled, normalised to 0-100 against the best placement) plus ``NodeResourcesFit``
   (``MostAllocated`` over the placement's nodes after its pods; see ``kube_nodes``), weights
   1 and 1. kube-scheduler breaks equal scores at random; here the placement whose name (label
   value) sorts first wins, so results are deterministic.

The one deliberate difference: kube-scheduler places each root child in its own cycle and lets
the ones that fit bind while another waits. toposched places them in order (each seeing what the
earlier ones took) but admits the gang whole: when any child cannot meet its minimum the gang is
``Unschedulable``, the reason naming that group with kube-scheduler's message ("0/N placements
are available, reported placement status: minCount (M) cannot be satisfied: S scheduled, R
remaining"; a CompositePodGroup's says "first placement status").

How it is computed: a PodGroup whose pending pods are all alike (the usual case) is worked out
in every candidate at once (``KubeNodes.room``: how many pods each node takes, so how many each
candidate schedules and how full it ends), and only the winner's pods are put on nodes
(``KubeNodes.fill``, the order ``pick`` would take one pod at a time). Other PodGroups are
simulated per candidate run by run of alike pods. ``place_kube(..., by_pod=True)`` is the
readable twin: every pod of every candidate through ``KubeNodes.pick``, as kube-scheduler does.

``search_gang`` is the same gang as the exact search of ``Search.COMPLETE`` reads it.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from functools import lru_cache
from itertools import groupby
from operator import attrgetter

import numpy as np

from toposched.engine.complete import pods_and_assignments
from toposched.engine.kube_nodes import KubeNodes, segment_sums
from toposched.engine.messages import Reasons
from toposched.engine.space import NodeSpace, TopoView
from toposched.model import Gang, Group, PodSpec, Policy, Resources, Unschedulable
from toposched.model.placement import Placement
from toposched.snapshot import Snapshot
from toposched.topology import IntArray, TopologyTree

Proposed = tuple[str, PodSpec, int]  # (PodGroup, pod, row)


@dataclass(slots=True)
class Trial:
    """One group simulated in one candidate placement (the ledger is back as it was after)."""

    placement: str  # the label value ("" without a key)
    feasible: bool
    status: str  # kube-scheduler's status when not feasible
    scheduled: int  # pods with a node: the PodGroup's, or those of the children that succeeded
    fullness: int  # MostAllocated over the placement's nodes after the proposed pods
    pods: list[Proposed] = field(default_factory=list)  # the new pods, where they go
    rows: IntArray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))  # the placement's nodes
    room: IntArray | None = None  # worked out at once: per node of ``rows``, the pods it takes


@dataclass(frozen=True, slots=True)
class Candidates:
    """A group's candidate placements: placement i is named ``names[i]`` (label values in name
    order) and holds the nodes ``rows[starts[i]:starts[i + 1]]``."""

    names: list[str]
    rows: IntArray
    starts: IntArray

    @classmethod
    def one(cls, name: str, rows: IntArray) -> Candidates:
        return cls([name], rows, np.asarray([0, len(rows)], dtype=np.int64))

    def __len__(self) -> int:
        return len(self.names)

    def __iter__(self) -> Iterator[tuple[str, IntArray]]:
        bounds = self.starts.tolist()
        for i, name in enumerate(self.names):
            yield name, self.rows[bounds[i] : bounds[i + 1]]


@dataclass(frozen=True, slots=True)
class Refusal:
    """A group without a qualifying placement: kube-scheduler's status and the facts behind it."""

    group: str
    message: str
    level: str | None = None
    fit: int | None = None
    needed: int | None = None


class GroupError(Exception):
    """A group kube-scheduler would fail with an error rather than leave unschedulable (a level
    the topology lacks, bound pods in two domains): it stops the whole placement."""

    def __init__(self, refusal: Refusal) -> None:
        super().__init__(refusal.message)
        self.refusal = refusal


def minimum(group: Group) -> int:
    """minCount of a PodGroup, minGroupCount of a CompositePodGroup; basic (None) is one."""
    value = group.min_member if group.is_leaf else group.min_sub_group
    return 1 if value is None else value


def cannot(need: int, scheduled: int, remaining: int) -> str:
    """The GangScheduling plugin's early-exit status."""
    return f"minCount ({need}) cannot be satisfied: {scheduled} scheduled, {remaining} remaining"


class KubePlacer:
    """Mutable state of one placement: the space's ledger, where bound pods sit, the scores."""

    def __init__(self, space: NodeSpace, nodes: KubeNodes, *, by_pod: bool = False) -> None:
        self.space = space
        self.nodes = nodes
        self.by_pod = by_pod  # the readable twin: every pod through ``KubeNodes.pick``
        self.bound: dict[str, list[tuple[PodSpec, int]]] = {}  # group -> its subtree's bound pods
        # By id: a PodGroup may share its name with a CompositePodGroup or the Workload.
        self._runs: dict[int, list[list[PodSpec]]] = {}
        self._columns: dict[int, IntArray] = {}

    def pin(self, root: Group) -> dict[tuple[str, str], int]:
        """Charge the pods that already run; note them per group (row -1: a node not in the
        space). Returns where they are, (PodGroup, pod) -> row."""
        where: dict[tuple[str, str], int] = {}
        for group in reversed(list(root.walk())):  # children before parents
            found = [(pod, self.space.row.get(pod.node, -1)) for pod in group.pods if pod.node is not None]
            for pod, row in found:
                if row >= 0:
                    self._charge(pod, row)
                    where[(group.name, pod.name)] = row
            for child in group.children:
                found += self.bound[child.name]
            self.bound[group.name] = found
        return where

    def _charge(self, pod: PodSpec, row: int) -> None:
        ledger = self.space.ledger
        ledger.charge(
            np.asarray([row], dtype=np.int64), np.ones(1, dtype=np.int64), ledger.vector(pod.requests)
        )

    def commit(self, pods: list[Proposed]) -> None:
        """Charge the proposed pods: one charge per pod shape."""
        ledger = self.space.ledger
        by_requests: dict[Resources, list[int]] = {}
        for _, pod, row in pods:
            by_requests.setdefault(pod.requests, []).append(row)
        for requests, rows in by_requests.items():
            at, count = np.unique(np.asarray(rows, dtype=np.int64), return_counts=True)
            ledger.charge(at, count, ledger.vector(requests))

    def runs(self, group: Group) -> list[list[PodSpec]]:
        """A PodGroup's pending pods in index order, cut into runs of alike pods."""
        found = self._runs.get(id(group))
        if found is None:
            pending = sorted((p for p in group.pods if p.node is None), key=lambda p: (p.index, p.name))
            found = self._runs[id(group)] = [list(run) for _, run in groupby(pending, key=attrgetter("shape"))]
        return found

    def columns(self, group: Group) -> IntArray:
        """The columns the placement score reads for ``group`` (every pod of its subtree)."""
        found = self._columns.get(id(group))
        if found is None:
            found = self._columns[id(group)] = self.nodes.columns(p.requests for p in group.all_pods())
        return found

    # -- one group ------------------------------------------------------------------------------

    def evaluate(self, group: Group, rows: IntArray, topology: str | None) -> Trial | Refusal:
        """The group's best placement inside ``rows`` (its parent's placement), or why none."""
        topology = group.topology if group.topology is not None else topology
        view = self.space.views.get(topology or self.space.default)
        if view is None:
            raise GroupError(
                Refusal(group.name, f"topology {topology!r} of group {group.name!r} is not known")
            )
        found = self.placements(group, rows[view.member[rows]], view)
        at_once = group.is_leaf and not self.by_pod and len(self.runs(group)) <= 1
        if at_once:
            trials = self._podgroup_each(group, found)
        else:
            trials = [self.simulate(group, name, part, topology) for name, part in found]
        feasible = [trial for trial in trials if trial.feasible]
        if feasible:
            best = choose(feasible)
            if at_once:
                best.pods = self._fill(group, best)
            return best
        first = "first placement status" if group.children else "reported placement status"
        status = trials[0].status if trials else f"no node has label {group.required}"
        return Refusal(
            group.name,
            f"0/{len(trials)} placements are available, {first}: {status}",
            level=group.required,
            fit=None if group.children else max((t.scheduled for t in trials), default=0),
            needed=None if group.children else minimum(group),
        )

    def placements(self, group: Group, rows: IntArray, view: TopoView) -> Candidates:
        """One candidate per value of the group's label among ``rows`` (pinned by bound pods),
        in name order; without a key, all of ``rows``. Raises ``GroupError``."""
        key = group.required
        if key is None:
            return Candidates.one("", rows)
        tree = view.tree
        level = tree.level_index(key)
        if level is None:
            raise GroupError(Refusal(group.name, f"no requested topology level: {key}", level=key))
        codes = view.codes[level]
        labelled = rows[codes[rows] >= 0]
        values, value_of = label_values(tree, level)
        which = value_of[codes[labelled]]  # per labelled row, its value's place in ``values``
        counts = np.bincount(which, minlength=len(values))
        present = np.flatnonzero(counts)
        order = np.argsort(which, kind="stable")  # rows by value, in their order within one
        starts = np.zeros(len(present) + 1, dtype=np.int64)
        np.cumsum(counts[present], out=starts[1:])
        found = Candidates([values[i] for i in present.tolist()], labelled[order], starts)
        bound = self.bound[group.name]
        if bound:
            pinned: set[str] = set()
            for pod, row in bound:
                if row < 0 or codes[row] < 0:
                    raise GroupError(
                        Refusal(
                            group.name,
                            f"pod {pod.name} of {group.name} is bound to node {pod.node}, which has no label {key}",
                            level=key,
                        )
                    )
                pinned.add(tree.path(level, int(codes[row]))[-1])
            if len(pinned) > 1:
                raise GroupError(
                    Refusal(
                        group.name,
                        f"pods of {group.name} are bound to nodes in {len(pinned)} domains of {key}: "
                        + ", ".join(sorted(pinned)),
                        level=key,
                    )
                )
            return next(
                (Candidates.one(name, part) for name, part in found if name in pinned),
                Candidates([], found.rows[:0], found.starts[:1]),
            )
        return found

    def simulate(self, group: Group, name: str, rows: IntArray, topology: str | None) -> Trial:
        ledger = self.space.ledger
        mark = ledger.mark()
        trial = (
            self._composite(group, name, rows, topology)
            if group.children
            else self._podgroup(group, name, rows)
        )
        trial.fullness = self.nodes.fullness(rows, self.columns(group))
        trial.rows = rows
        ledger.undo(mark)
        return trial

    def _podgroup_each(self, group: Group, found: Candidates) -> list[Trial]:
        """A PodGroup of alike pending pods in every candidate at once, without its pods
        (``_fill`` puts the winner's on nodes). Pods in index order each take a node while
        one has room, so a candidate schedules as many as its nodes take, and stops at the
        first that fits nowhere once minCount is out of reach."""
        need = minimum(group)
        runs = self.runs(group)
        pending = runs[0] if runs else []
        bound = len(group.pods) - len(pending)
        if bound + len(pending) < need:
            status = cannot(need, bound, len(pending))
            return [Trial(name, False, status, bound, 0, rows=part) for name, part in found]
        rows, starts = found.rows, found.starts
        cols = self.columns(group)
        if pending:
            room = self.nodes.room(pending[0], rows, len(pending))
            placed = np.minimum(segment_sums(room, starts), len(pending))
            added = placed[:, None] * self.space.ledger.vector(pending[0].requests)[cols]
        else:
            placed = np.zeros(len(found), dtype=np.int64)
            added = np.zeros((len(found), len(cols)), dtype=np.int64)
        fullness = self.nodes.fullness_each(rows, starts, cols, added).tolist()
        trials = []
        bounds = starts.tolist()
        for i, (name, part) in enumerate(found):
            scheduled = bound + int(placed[i])
            # Short of minCount: it stopped at the pod that left too few behind.
            status = "" if scheduled >= need else cannot(need, scheduled, need - scheduled - 1)
            trial = Trial(name, not status, status, scheduled, fullness[i], rows=part)
            trial.room = room[bounds[i] : bounds[i + 1]] if pending else None
            trials.append(trial)
        return trials

    def _fill(self, group: Group, trial: Trial) -> list[Proposed]:
        """The pods ``_podgroup_each`` scheduled in ``trial``, on the nodes ``pick`` gives them."""
        runs = self.runs(group)
        if not runs:
            return []
        pending = runs[0]
        count = trial.scheduled - (len(group.pods) - len(pending))
        at = self.nodes.fill(pending[0], count, trial.rows, trial.room)
        return [(group.name, pod, row) for pod, row in zip(pending, at.tolist(), strict=False)]

    def _podgroup(self, group: Group, name: str, rows: IntArray) -> Trial:
        """Run by run of alike pods in index order (see ``_podgroup_each``); the ledger keeps
        the pods placed (``simulate`` undoes)."""
        if self.by_pod:
            return self._podgroup_by_pod(group, name, rows)
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

    def _podgroup_by_pod(self, group: Group, name: str, rows: IntArray) -> Trial:
        """Pod by pod in index order; the ledger keeps the pods placed (``simulate`` undoes)."""
        need = minimum(group)
        pending = sorted((p for p in group.pods if p.node is None), key=lambda p: (p.index, p.name))
        scheduled, remaining = len(group.pods) - len(pending), len(pending)
        trial = Trial(name, False, "", scheduled, 0)
        if scheduled + remaining < need:
            trial.status = cannot(need, scheduled, remaining)
            return trial
        for pod in pending:
            row = self.nodes.pick(pod, rows)
            remaining -= 1
            if row is not None:
                self._charge(pod, row)
                trial.pods.append((group.name, pod, row))
                scheduled += 1
            if scheduled + remaining < need:
                trial.status = cannot(need, scheduled, remaining)
                break
        trial.scheduled = scheduled
        trial.feasible = not trial.status and scheduled >= need
        return trial

    def _composite(self, group: Group, name: str, rows: IntArray, topology: str | None) -> Trial:
        """Children in order, each keeping its best placement for the next; no backtracking."""
        need = minimum(group)
        done, remaining = 0, len(group.children)
        trial = Trial(name, False, "", 0, 0)
        if done + remaining < need:
            trial.status = cannot(need, done, remaining)
            return trial
        for child in group.children:
            result = self.evaluate(child, rows, topology)
            remaining -= 1
            if isinstance(result, Trial):
                self.commit(result.pods)
                trial.pods += result.pods
                trial.scheduled += result.scheduled
                done += 1
            if done + remaining < need:
                trial.status = cannot(need, done, remaining)
                break
        trial.feasible = not trial.status and done >= need
        return trial


@lru_cache(maxsize=8)  # the trees of the current cycle
def label_values(tree: TopologyTree, level: int) -> tuple[list[str], IntArray]:
    """The label values of ``level``'s domains, distinct and in name order, and per domain the
    place of its value (a value may name several domains: the same rack name under two
    blocks is one placement)."""
    names = np.asarray([tree.path(level, d)[-1] for d in range(tree.count(level))], dtype=np.str_)
    values, value_of = np.unique(names, return_inverse=True)  # sorted as Python sorts str
    return values.tolist(), value_of.astype(np.int64)


def choose(feasible: list[Trial]) -> Trial:
    """The highest PodGroupPodsCount + NodeResourcesFit score; equal scores: first by name."""
    best = max(trial.scheduled for trial in feasible)

    def score(trial: Trial) -> int:
        return (trial.scheduled * 100 // best if best else 0) + trial.fullness

    return min(feasible, key=lambda trial: (-score(trial), trial.placement))


def units(root: Group) -> tuple[Group, ...]:
    """The PodGroups and CompositePodGroups the gang holds (a lone PodGroup may be the root)."""
    return (root,) if root.is_leaf else root.children


def place_kube(
    gang: Gang,
    snapshot: Snapshot,
    *,
    policy: Policy,
    snapshots: Mapping[str, Snapshot] | None = None,
    by_pod: bool = False,
) -> Placement | Unschedulable:
    """Place ``gang`` as kube-scheduler would (module docstring), admitted whole; the snapshots
    are not changed. ``policy`` is only reported: kube-scheduler's scores order the domains.
    ``by_pod``: the readable twin (every pod through ``KubeNodes.pick``), same result."""
    reasons = Reasons(gang.name, snapshot.tree.topology.name, policy)
    with NodeSpace.open(snapshot, snapshots) as space:
        nodes = KubeNodes(space, [snapshot, *(snapshots or {}).values()], gang.root.all_pods())
        placer = KubePlacer(space, nodes, by_pod=by_pod)
        where = placer.pin(gang.root)
        everything = np.arange(space.size, dtype=np.int64)
        for unit in units(gang.root):
            try:
                result = placer.evaluate(unit, everything, gang.root.topology)
            except GroupError as error:
                result = error.refusal
            if isinstance(result, Refusal):
                return reasons.refuse(
                    result.message,
                    group=result.group,
                    level=result.level,
                    fit=result.fit,
                    needed=result.needed,
                )
            placer.commit(result.pods)
            where.update(((leaf, pod.name), row) for leaf, pod, row in result.pods)
        pods, assignments = pods_and_assignments(gang, space, where)
        return Placement(gang.name, space.default, policy, pods, assignments)


def search_gang(gang: Gang) -> Gang:
    """The gang as the exact search reads it: every root child required, a PodGroup's minCount
    and a CompositePodGroup's minGroupCount spelled out (basic: one pod, one child)."""

    def spelled(group: Group) -> Group:
        if group.is_leaf:
            return replace(group, min_member=minimum(group))
        return replace(group, min_sub_group=minimum(group), children=tuple(map(spelled, group.children)))

    root = gang.root
    if root.is_leaf:
        return replace(gang, root=spelled(root))
    return replace(gang, root=replace(root, min_sub_group=None, children=tuple(map(spelled, root.children))))
