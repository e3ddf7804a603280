"""kube-scheduler's placement of one gang's groups, simulated as kube-scheduler does it: each
candidate placement on its own, every pod through ``KubeNodes.pick`` (the rules are in
``toposched.engine.kube.podgroups``'s docstring).

``KubePlacer`` is the readable reference; ``toposched.engine.kube.each.EachPlacer`` gives the
same answers with array work. The candidate placements (``KubePlacer.placements``), the choice
among them (``outcome``) and the charges are shared by both.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np

from toposched.engine.core.caches import Slot
from toposched.engine.core.space import NodeSpace, TopoView
from toposched.engine.kube.nodes import KubeNodes
from toposched.model import Group, PodSpec, Resources
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
    """Candidate placements: placement i is named ``names[i]`` (the label value) and holds the
    nodes ``rows[starts[i]:starts[i + 1]]``. Placements never share a node."""

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

    def owner(self) -> IntArray:
        """Per row of ``rows``, the placement it belongs to."""
        owner: IntArray = np.repeat(np.arange(len(self.names), dtype=np.int64), np.diff(self.starts))
        return owner

    def subset(self, keep: list[int]) -> Candidates:
        """The placements ``keep`` (ascending), in that order."""
        if len(keep) == len(self.names):
            return self
        chosen = np.zeros(len(self.names), dtype=np.bool_)
        chosen[keep] = True
        sizes = np.diff(self.starts)
        starts = np.zeros(len(keep) + 1, dtype=np.int64)
        np.cumsum(sizes[keep], out=starts[1:])
        return Candidates([self.names[i] for i in keep], self.rows[np.repeat(chosen, sizes)], starts)


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


def pending_pods(group: Group) -> list[PodSpec]:
    """A PodGroup's pods without a node, in index order."""
    return sorted((p for p in group.pods if p.node is None), key=lambda p: (p.index, p.name))


NO_PLACEMENTS = "no feasible placements found"


def refusal(group: Group, placements: int, status: str | None, fit: int) -> Refusal:
    """No qualifying placement among ``placements``: the first one's ``status`` (None: there
    is none), and the most pods one scheduled (``fit``, for a PodGroup). kube-scheduler v1.37.2
    words both kinds alike (schedule_one_podgroup.go): "first placement status"; the first is
    random there (a map's order), here the first by name. With no placement at all (no node
    has the group's label) the generator's own status is the message
    (framework.go, ``RunPlacementGeneratePlugins``)."""
    message = (
        NO_PLACEMENTS
        if status is None
        else f"0/{placements} placements are available, first placement status: {status}"
    )
    return Refusal(
        group.name,
        message,
        level=group.required,
        fit=None if group.children else fit,
        needed=None if group.children else minimum(group),
    )


def minimum(group: Group) -> int:
    """minCount of a PodGroup, minGroupCount of a CompositePodGroup; basic (None) is one."""
    value = group.min_member if group.is_leaf else group.min_sub_group
    return 1 if value is None else value


def cannot(need: int, scheduled: int, remaining: int) -> str:
    """The GangScheduling plugin's early-exit status."""
    return f"minCount ({need}) cannot be satisfied: {scheduled} scheduled, {remaining} remaining"


class KubePlacer:
    """Mutable state of one placement: the space's ledger, where bound pods sit, the scores."""

    def __init__(self, space: NodeSpace, nodes: KubeNodes) -> None:
        self.space = space
        self.nodes = nodes
        # By id, as a group's name need not be unique: a PodGroup may be named like its Workload
        # (the root) or share a CompositePodGroup's name.
        self.bound: dict[int, list[tuple[PodSpec, int]]] = {}  # a group's subtree's bound pods

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
                found += self.bound[id(child)]
            self.bound[id(group)] = found
        return where

    def _charge(self, pod: PodSpec, row: int) -> None:
        ledger = self.space.ledger
        ledger.charge(
            np.asarray([row], dtype=np.int64), np.ones(1, dtype=np.int64), self.nodes.vector(pod.requests)
        )

    def commit(self, pods: list[Proposed]) -> None:
        """Charge the proposed pods: one charge per pod shape."""
        ledger = self.space.ledger
        by_requests: dict[Resources, list[int]] = {}
        for _, pod, row in pods:
            by_requests.setdefault(pod.requests, []).append(row)
        for requests, rows in by_requests.items():
            at, count = np.unique(np.asarray(rows, dtype=np.int64), return_counts=True)
            ledger.charge(at, count, self.nodes.vector(requests))

    # -- one group ------------------------------------------------------------------------------

    def evaluate(self, group: Group, rows: IntArray, topology: str | None) -> Trial | Refusal:
        """The group's best placement inside ``rows`` (its parent's placement), or why none."""
        topology = group.topology if group.topology is not None else topology
        found, _ = self.placements(group, Candidates.one("", rows), self.view(group, topology))
        return self.outcome(group, [self.simulate(group, name, part, topology) for name, part in found])

    def view(self, group: Group, topology: str | None) -> TopoView:
        """The view of the topology the group's key is a level of. Raises ``GroupError``."""
        view = self.space.views.get(topology or self.space.default)
        if view is None:
            raise GroupError(
                Refusal(group.name, f"topology {topology!r} of group {group.name!r} is not known")
            )
        return view

    def outcome(self, group: Group, trials: list[Trial]) -> Trial | Refusal:
        """The best of the group's qualifying placements, or kube-scheduler's status."""
        feasible = [trial for trial in trials if trial.feasible]
        if feasible:
            return choose(feasible)
        status = trials[0].status if trials else None
        return refusal(group, len(trials), status, max((t.scheduled for t in trials), default=0))

    def placements(self, group: Group, parents: Candidates, view: TopoView) -> tuple[Candidates, IntArray]:
        """The group's candidates inside each of its parent's ``parents``: one per value of the
        group's label among the parent's nodes that have it (pinned by bound pods), in name
        order; without a key, all of the parent's nodes of ``view``. Returns them, the
        candidates of one parent after another, and per candidate its parent. Raises
        ``GroupError``."""
        owner = parents.owner()
        member = view.member[parents.rows]
        key = group.required
        if key is None:
            starts = np.zeros(len(parents) + 1, dtype=np.int64)
            np.cumsum(np.bincount(owner[member], minlength=len(parents)), out=starts[1:])
            return Candidates([""] * len(parents), parents.rows[member], starts), np.arange(len(parents))
        tree = view.tree
        level = tree.level_index(key)
        if level is None:
            raise GroupError(Refusal(group.name, f"no requested topology level: {key}", level=key))
        codes = view.codes[level]
        labelled = member & (codes[parents.rows] >= 0)
        rows, owner = parents.rows[labelled], owner[labelled]
        values, value_of = self.space.caches.per_tree(
            tree, _LABEL_VALUES, level, lambda: label_values(tree, level)
        )
        which = value_of[codes[rows]]  # per row, its value's place in ``values``
        pinned = self.pinned(group, codes, tree, level)
        if pinned is not None:
            keep = which == values.index(pinned)
            rows, owner, which = rows[keep], owner[keep], which[keep]
        placement = owner * max(len(values), 1) + which  # by parent, then by value
        present, sizes = np.unique(placement, return_counts=True)
        order = np.argsort(placement, kind="stable")  # rows by placement, in their order within one
        starts = np.zeros(len(present) + 1, dtype=np.int64)
        np.cumsum(sizes, out=starts[1:])
        parent, value = np.divmod(present, max(len(values), 1))
        return Candidates([values[i] for i in value.tolist()], rows[order], starts), parent

    def pinned(self, group: Group, codes: IntArray, tree: TopologyTree, level: int) -> str | None:
        """The label value the group's bound pods pin it to (None: no bound pod). Raises
        ``GroupError`` for a bound pod on a node without the label or pods in two values."""
        bound = self.bound[id(group)]
        if not bound:
            return None
        key = group.required
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
        return pinned.pop()

    def simulate(self, group: Group, name: str, rows: IntArray, topology: str | None) -> Trial:
        ledger = self.space.ledger
        mark = ledger.mark()
        trial = (
            self._composite(group, name, rows, topology)
            if group.children
            else self._podgroup(group, name, rows)
        )
        trial.fullness = self.nodes.fullness(rows)
        trial.rows = rows
        ledger.undo(mark)
        return trial

    def _podgroup(self, group: Group, name: str, rows: IntArray) -> Trial:
        """Pod by pod in index order; the ledger keeps the pods placed (``simulate`` undoes)."""
        need = minimum(group)
        pending = pending_pods(group)
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


_LABEL_VALUES: Slot[tuple[tuple[str, ...], IntArray]] = Slot("label values per level")


def label_values(tree: TopologyTree, level: int) -> tuple[tuple[str, ...], IntArray]:
    """The label values of ``level``'s domains, distinct and in name order, and per domain the
    place of its value (a value may name several domains: the same rack name under two
    blocks is one placement). Depends on the tree only: kept per tree (``_LABEL_VALUES``)."""
    names = np.asarray([tree.path(level, d)[-1] for d in range(tree.count(level))], dtype=np.str_)
    values, value_of = np.unique(names, return_inverse=True)  # sorted as Python sorts str
    codes = value_of.astype(np.int64)
    codes.flags.writeable = False  # shared by every caller (kept)
    return tuple(values.tolist()), codes


def choose(feasible: list[Trial]) -> Trial:
    """The highest PodGroupPodsCount + NodeResourcesFit score; equal scores: first by name."""
    best = max(trial.scheduled for trial in feasible)

    def score(trial: Trial) -> int:
        return (trial.scheduled * 100 // best if best else 0) + trial.fullness

    return min(feasible, key=lambda trial: (-score(trial), trial.placement))
