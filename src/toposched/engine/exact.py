"""The exact bounded search behind ``Search.COMPLETE``: backtracking over every choice a gang leaves.

It works on the hierarchical solver's tree (``members.build``: slices are required child groups)
and capacity ledger (``NodeSpace``), depth first over the groups:

* a group with a required level tries every domain of that level (one holding all its running
  pods), its preferred level's domains first when it has one; a group with only a preferred
  level tries every domain of it, then all the rows it may use; an unconstrained group keeps its
  parent's rows; an inner group whose ``min_sub_group`` is below its child count tries every
  choice of the children to satisfy;
* a leaf tries every split of its pods (per pod shape) over its rows, fullest nodes first
  (``splits``), charging the ledger, so later groups see what earlier ones took.

Children with a required level go first (largest first), and interchangeable siblings (Kueue
slices) take domains in domain order, which skips their permutations. Before each step every
group still to place must fit, per pod shape, in the free capacity of its rows, and the groups of
one request vector together in the union of theirs; a step that breaks this is cut. Any failure
rolls back to the latest choice. The search is exact: when it ends without a placement, none
exists. ``SearchBudget`` bounds it by steps and, optionally, an injected expiry check; hitting
either ends it as "exhausted".
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import combinations

import numpy as np

from toposched.engine.members import Progress, SNode
from toposched.engine.space import NodeSpace
from toposched.engine.splits import splits
from toposched.model import PodSpec
from toposched.snapshot import fits_count
from toposched.topology import IntArray

DEFAULT_STEPS = 50_000
MAX_GROUPS = 200  # groups and slices the search takes on (its depth-first walk recurses per group)
_EXPIRY_EVERY = 256  # steps between two calls of the expiry check

Task = tuple[SNode, IntArray]  # a group still to place and the rows its parent allows


@dataclass(frozen=True, slots=True)
class SearchBudget:
    """How far the exact search may go: ``steps`` choices tried, and ``expired`` (injected, e.g. a
    deadline on a monotonic clock) asked every few hundred steps. The engine reads no clock."""

    steps: int = DEFAULT_STEPS
    expired: Callable[[], bool] | None = None


@dataclass(slots=True)
class Outcome:
    """Where each pod went, (IR leaf, pod name) -> row, when ``found``."""

    found: bool
    exhausted: bool
    steps: int
    where: dict[tuple[str, str], int] = field(default_factory=dict)


class _ExhaustedError(Exception):
    """The budget ran out (unwinds the recursion; never leaves this module)."""


class ExactSearch:
    """One exact search over ``root`` on ``space`` (charged as it goes, rolled back on failure)."""

    def __init__(self, space: NodeSpace, root: SNode, budget: SearchBudget) -> None:
        self.space = space
        self.root = root
        self.budget = budget
        self.steps = 0
        self.progress = Progress()
        self.where: dict[tuple[str, str], int] = {}
        self.held: dict[str, IntArray] = {}
        self.leaf_rows: dict[str, IntArray] = {}  # rows of each leaf placed so far
        self.code: dict[str, int] = {}  # required-level domain of each group placed so far
        self.twin: dict[str, str] = {}  # group -> the interchangeable sibling placed just before it
        self._runs: dict[str, list[list[PodSpec]]] = {}
        self._order = _tree_order(space)

    def run(self) -> Outcome:
        if len(self.root.walk()) > MAX_GROUPS:
            return Outcome(False, True, 0)
        self._pin()
        try:
            found = self._step([(self.root, np.arange(self.space.size, dtype=np.int64))])
        except _ExhaustedError:
            return Outcome(False, True, self.steps)
        if found:
            self._grow()
        return Outcome(found, False, self.steps, dict(self.where) if found else {})

    # -- set-up and bookkeeping -----------------------------------------------------------------

    def _pin(self) -> None:
        """Charge pods that already run and note, per group, the rows they hold."""
        rows_of: dict[str, list[int]] = {}
        for node in reversed(self.root.walk()):  # children before parents
            rows = [r for child in node.children for r in rows_of[child.name]]
            for pod in node.pods if node.is_leaf else ():
                if pod.node is None:
                    continue
                self.progress.active.setdefault(node.name, set()).add(pod.name)
                row = self.space.row.get(pod.node)
                if row is not None:
                    self.space.charge(row, self.space.vector(pod.requests))
                    self.where[(node.leaf, pod.name)] = row
                    rows.append(row)
            rows_of[node.name] = rows
            self.held[node.name] = np.unique(np.asarray(rows, dtype=np.int64))

    def _tick(self) -> None:
        self.steps += 1
        if self.steps > self.budget.steps:
            raise _ExhaustedError
        if self.budget.expired is not None and self.steps % _EXPIRY_EVERY == 1 and self.budget.expired():
            raise _ExhaustedError

    def _wanted(self, node: SNode) -> list[PodSpec]:
        """The pods a leaf must place to reach its minimum (pending ones, in index order)."""
        missing = self.progress.minimum(node) - self.progress.count(node)
        return self.progress.pending(node)[: max(missing, 0)]

    def _bound(self, node: SNode) -> list[list[PodSpec]]:
        """Pods the group needs for sure, per shape run (inner groups that may drop children and
        their subtrees: none)."""
        cached = self._runs.get(node.name)
        if cached is None:
            if node.is_leaf:
                cached = _shape_runs(self._wanted(node))
            elif self.progress.threshold(node) < len(node.children):
                cached = []
            else:
                cached = [run for child in node.children for run in self._bound(child)]
            self._runs[node.name] = cached
        return cached

    def _capacity(self, rows: IntArray, pod: PodSpec) -> IntArray:
        """Pods like ``pod`` each row still holds (0 where its taints or selector rule it out)."""
        allowed = self.space.eligible(pod.tolerations, tuple(sorted(pod.node_selector.items())))
        cap = fits_count(self.space.free[rows], self.space.columns, pod.requests)
        return np.where(allowed[rows], cap, 0)

    def _fits(self, rows: IntArray, runs: list[list[PodSpec]]) -> bool:
        return all(self._capacity(rows, run[0]).sum() >= len(run) for run in runs)

    def _room_left(self, tasks: list[Task]) -> bool:
        """Every group still to place fits its rows, and the groups of one request vector fit
        the union of theirs (a cut, not a proof)."""
        pooled: dict[bytes, tuple[list[PodSpec], list[IntArray]]] = {}
        for node, rows in tasks:
            runs = self._bound(node)
            if not self._fits(rows, runs):
                return False
            for run in runs:
                key = self.space.vector(run[0].requests).tobytes()
                pods, parts = pooled.setdefault(key, ([], []))
                pods += run
                parts.append(rows)
        for pods, parts in pooled.values():
            if len(parts) > 1:
                union = np.unique(np.concatenate(parts))
                if fits_count(self.space.free[union], self.space.columns, pods[0].requests).sum() < len(pods):
                    return False
        return True

    # -- the walk -------------------------------------------------------------------------------

    def _step(self, tasks: list[Task]) -> bool:
        """Place the groups of ``tasks`` (the last one first) and everything below them."""
        self._tick()
        if not tasks:
            return True
        if not self._room_left(tasks):
            return False
        node, rows = tasks[-1]
        rest = tasks[:-1]
        wanted = self._wanted(node) if node.is_leaf else []
        if node.is_leaf and len(wanted) < self.progress.minimum(node) - self.progress.count(node):
            return False  # fewer pending pods than the minimum needs (the faithful reason says so)
        options = self._options(node, rows)
        if node.is_leaf and not wanted:
            options = options[:1]  # nothing to place: the domain only bounds elastic pods
        for code, option in options:
            self.code[node.name] = code
            if node.is_leaf:
                self.leaf_rows[node.name] = option
                if self._place(_shape_runs(wanted), option, node, rest):
                    return True
                del self.leaf_rows[node.name]
                continue
            for chosen in self._selections(node):
                kids = sorted(chosen, key=lambda c: (c.required is None, -len(self._pods_of(c))))
                for before, kid in zip([None, *kids], kids, strict=False):
                    if before is not None and _signature(before) == _signature(kid):
                        self.twin[kid.name] = before.name
                    else:
                        self.twin.pop(kid.name, None)
                if self._step(rest + [(kid, option) for kid in reversed(kids)]):
                    return True
        return False

    def _place(self, runs: list[list[PodSpec]], rows: IntArray, leaf: SNode, rest: list[Task]) -> bool:
        """Every split of the leaf's first shape run over ``rows``, then the next run, then the
        remaining groups."""
        if not runs:
            return self._step(rest)
        run = runs[0]
        ordered = rows[np.argsort(self._order[rows], kind="stable")]
        cap = self._capacity(ordered, run[0])
        usable, cap = ordered[cap > 0], cap[cap > 0]
        vec = self.space.vector(run[0].requests)
        for split in splits(cap.tolist(), len(run)):
            self._tick()
            mark = self.space.mark()
            done = 0
            for position, take in split:
                row = int(usable[position])
                self.space.charge(row, vec * take)
                for pod in run[done : done + take]:
                    self.where[(leaf.leaf, pod.name)] = row
                done += take
            if self._place(runs[1:], rows, leaf, rest):
                return True
            for pod in run:
                self.where.pop((leaf.leaf, pod.name), None)
            self.space.rollback(mark)
        return False

    def _selections(self, node: SNode) -> list[tuple[SNode, ...]]:
        """Which children to satisfy: all of them, or every choice of the missing number."""
        threshold = self.progress.threshold(node)
        if threshold >= len(node.children):
            return [tuple(node.children)]
        open_ = [c for c in self.progress.order(node) if not self.progress.satisfied(c)]
        missing = max(threshold - (len(node.children) - len(open_)), 0)
        return list(combinations(open_, missing))

    def _pods_of(self, node: SNode) -> list[PodSpec]:
        return [pod for run in self._bound(node) for pod in run]

    def _options(self, node: SNode, rows: IntArray) -> list[tuple[int, IntArray]]:
        """The (domain, rows) to try for ``node``, preferred first, each big enough for its pods;
        domain -1 when the rows are not one domain of the required level."""
        if not node.constrained:
            return [(-1, rows)]
        view = self.space.views.get(node.topology if node.topology is not None else self.space.default)
        if view is None or (node.required is None and node.preferred is None):
            return []  # the faithful solver refuses these too; its reason stands
        req = view.tree.level_index(node.required) if node.required is not None else None
        pref = view.tree.level_index(node.preferred) if node.preferred is not None else None
        if (node.required is not None and req is None) or (node.preferred is not None and pref is None):
            return []
        valid = rows[view.member[rows]]
        held = self.held[node.name]
        if req is not None and len(held):
            codes = set(view.codes[req][held].tolist())
            if len(codes) != 1 or -1 in codes:
                return []  # running pods already span several domains of the level
            valid = valid[view.codes[req][valid] == codes.pop()]
        twin = self.twin.get(node.name)
        if req is not None and twin is not None and pref is None:
            valid = valid[view.codes[req][valid] >= self.code[twin]]  # permutations of twins: skip
        runs = self._bound(node)
        options: list[tuple[int, IntArray]] = []
        if pref is not None and (req is None or pref > req):
            fine = self._by_domain(valid, view.codes[pref], runs)
            options += [(-1 if req is None else int(view.codes[req][part[0]]), part) for _, part in fine]
        if req is not None:
            options += self._by_domain(valid, view.codes[req], runs)
        elif self._fits(valid, runs):
            options.append((-1, valid))
        return options

    def _by_domain(
        self, rows: IntArray, codes: IntArray, runs: list[list[PodSpec]]
    ) -> list[tuple[int, IntArray]]:
        """``rows`` split by domain, the domains that fit ``runs``, tightest first (ties by domain)."""
        ranked: list[tuple[int, int, IntArray]] = []
        keys = codes[rows]
        for code in np.unique(keys).tolist():
            part = rows[keys == code]
            if code < 0 or not self._fits(part, runs):
                continue
            room = sum(int(self._capacity(part, run[0]).sum()) for run in runs)
            ranked.append((room, code, part))
        ranked.sort(key=lambda t: t[:2])
        return [(code, part) for _, code, part in ranked]

    def _grow(self) -> None:
        """Elastic pods beyond the minima: one at a time, in index order, on the first row of the
        leaf's chosen rows with room; a leaf stops at its first pod that fits nowhere."""
        leaves = {leaf.name: leaf for leaf in self.root.walk() if leaf.is_leaf}
        for name, rows in self.leaf_rows.items():
            leaf = leaves[name]
            rows = rows[np.argsort(self._order[rows], kind="stable")]
            for pod in self.progress.pending(leaf):
                if (leaf.leaf, pod.name) in self.where:
                    continue
                room = np.flatnonzero(self._capacity(rows, pod) > 0)
                if not len(room):
                    break
                row = int(rows[room[0]])
                self.space.charge(row, self.space.vector(pod.requests))
                self.where[(leaf.leaf, pod.name)] = row


def _shape_runs(pods: list[PodSpec]) -> list[list[PodSpec]]:
    """Consecutive pods of one shape (requests, tolerations, selector) together."""
    runs: list[list[PodSpec]] = []
    for pod in pods:
        if runs and runs[-1][0].shape == pod.shape:
            runs[-1].append(pod)
        else:
            runs.append([pod])
    return runs


def _signature(node: SNode) -> object:
    """What makes two sibling groups interchangeable: constraint, minima, pod shapes, children
    (and no running pods, which tie a group to its nodes)."""
    if any(pod.node is not None for pod in node.pods):
        return object()  # equal to nothing
    return (
        node.required,
        node.preferred,
        node.topology,
        node.min_member,
        node.min_sub_group,
        tuple(pod.shape for pod in node.pods),
        tuple(_signature(child) for child in node.children),
    )


def _tree_order(space: NodeSpace) -> IntArray:
    """Each row's rank in the default topology's tree order (rows outside it last), so the pods
    of a split fill neighbouring nodes and consecutive ranks land together."""
    view = space.views[space.default]
    keys = [np.where(code >= 0, code, np.iinfo(np.int64).max) for code in view.codes]
    order = np.lexsort((np.arange(space.size), *reversed(keys)))
    rank = np.empty(space.size, dtype=np.int64)
    rank[order] = np.arange(space.size, dtype=np.int64)
    return rank
