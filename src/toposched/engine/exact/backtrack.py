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

Groups of one pod shape that each require a domain of one level inside the same rows (Kueue
slices, interchangeable subgroups) are also bounded together: each domain holds only whole
groups, so the number of groups the domains can hold, summed, must reach the number left to
place (``slice_room``). A gang asking for more slices than any of its domains can hold is refused
at its first step instead of by trying every split.

The walk is a generator that pauses every few hundred steps, so a caller can stop a search at
its share of a round and ``resume`` it later, on the same capacity (``run`` goes to the end).
Which domains a group tries is ``exact_domains``'; where the pods went, ``exact_pods``'.
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from dataclasses import dataclass, field
from itertools import combinations

import numpy as np

from toposched.engine.core.budget import SearchBudget, Steps
from toposched.engine.core.ledger import Ledger
from toposched.engine.core.members import GroupNode, Progress
from toposched.engine.core.space import NodeSpace
from toposched.engine.exact.bounds import Runs, capacity, room_left, shape_runs, slice_room, tree_order
from toposched.engine.exact.domains import DomainChoices
from toposched.engine.exact.pods import FoundPods
from toposched.engine.exact.splits import splits
from toposched.model import PodSpec
from toposched.topology import IntArray

MAX_GROUPS = 200  # groups and slices the search takes on (its depth-first walk recurses per group)

Task = tuple[GroupNode, IntArray]  # a group still to place and the rows its parent allows
Walk = Generator[None, None, bool]  # pauses every ``EXPIRY_EVERY`` steps; returns whether it placed


@dataclass(slots=True)
class ExactResult:
    """Where each pod went, (IR leaf, pod name) -> row, when ``found``."""

    found: bool
    exhausted: bool
    steps: int
    where: dict[tuple[str, str], int] = field(default_factory=dict)
    too_large: bool = False  # more than MAX_GROUPS groups and slices: not searched


class ExactSearch:
    """One exact search over ``root`` on ``space`` (charged as it goes, rolled back on failure)."""

    def __init__(self, space: NodeSpace, root: GroupNode, budget: SearchBudget) -> None:
        self.space = space
        self.root = root
        self.steps = Steps(budget)
        self.progress = Progress()
        self.pods = FoundPods(space, self.progress)
        self.domains = DomainChoices(space)
        self.code: dict[str, int] = {}  # required-level domain of each group placed so far
        self.twin: dict[str, str] = {}  # group -> the interchangeable sibling placed just before it
        self._runs: dict[str, Runs] = {}
        self._order = tree_order(space)
        self._walk: Walk | None = None
        self._outcome: ExactResult | None = None  # once the search ended

    def run(self) -> ExactResult:
        """The search to its end, within its budget."""
        outcome = self.resume()
        assert outcome is not None  # nothing pauses it
        return outcome

    def resume(self, pause: Callable[[], bool] | None = None) -> ExactResult | None:
        """Search on until the search ends (its ``ExactResult``, kept: asking again gives it again)
        or, asked every few hundred steps, ``pause`` says to stop for now (None; the capacity
        must stay as it is until it is resumed)."""
        if self._outcome is None:
            self._outcome = self._go_on(pause)
            if self._outcome is not None:
                self.steps.settle()
        return self._outcome

    def _go_on(self, pause: Callable[[], bool] | None) -> ExactResult | None:
        if self._walk is None:
            if len(self.root.walk()) > MAX_GROUPS:
                return ExactResult(False, True, 0, too_large=True)
            self.pods.pin(self.root)
            if self.domains.held_apart(self.root, self.pods.held):
                return ExactResult(False, False, self.steps.count)
            self._walk = self._step([(self.root, self.space.every_row)])
        if pause is not None and pause():
            return None  # no time for it in this round
        try:
            while True:
                next(self._walk)  # a run of steps, or past the budget
                if self.steps.spent():
                    return ExactResult(False, True, self.steps.count)
                if pause is not None and pause():
                    return None
        except StopIteration as end:
            found = bool(end.value)
        except RecursionError:  # one frame per group and pod-shape run: too many distinct shapes
            return ExactResult(False, True, self.steps.count, too_large=True)
        if found:
            self.pods.record()
            self.pods.grow(self.root, self._order)
        return ExactResult(found, False, self.steps.count, dict(self.pods.where) if found else {})

    # -- set-up and bookkeeping -----------------------------------------------------------------

    @property
    def ledger(self) -> Ledger:
        return self.space.ledger

    def _wanted(self, node: GroupNode) -> list[PodSpec]:
        """The pods a leaf must place to reach its minimum (pending ones, in index order)."""
        missing = self.progress.minimum(node) - self.progress.count(node)
        return self.progress.pending(node)[: max(missing, 0)]

    def _bound(self, node: GroupNode) -> Runs:
        """Pods the group needs for sure, per shape run (inner groups that may drop children and
        their subtrees: none)."""
        cached = self._runs.get(node.name)
        if cached is None:
            if node.is_leaf:
                cached = shape_runs(self._wanted(node))
            elif self.progress.threshold(node) < len(node.children):
                cached = []
            else:
                cached = [run for child in node.children for run in self._bound(child)]
            self._runs[node.name] = cached
        return cached

    def _room_left(self, tasks: list[Task]) -> bool:
        if not room_left(self.space, [(self._bound(node), rows) for node, rows in tasks]):
            return False
        # A group whose twin is placed takes a domain from the twin's on (``_options``).
        pending = {node.name for node, _ in tasks}
        lowest = {
            node.name: self.code[twin]
            for node, _ in tasks
            if (twin := self.twin.get(node.name)) is not None and twin not in pending and twin in self.code
        }
        return slice_room(self.space, [(node, self._bound(node), rows) for node, rows in tasks], lowest)

    # -- the walk -------------------------------------------------------------------------------

    def _step(self, tasks: list[Task]) -> Walk:
        """Place the groups of ``tasks`` (the last one first) and everything below them."""
        if self.steps.tick():
            yield
        if not tasks:
            return True
        if not self._room_left(tasks):
            return False
        node, rows = tasks[-1]
        rest = tasks[:-1]
        wanted = self._wanted(node) if node.is_leaf else []
        if node.is_leaf and len(wanted) < self.progress.minimum(node) - self.progress.count(node):
            return False  # fewer pending pods than the minimum needs (the faithful reason says so)
        if node.is_leaf and not wanted:  # nothing to place: a domain only bounds elastic pods
            options = self._options(node, rows)
            if not options and node.required is not None:
                return False  # its running pods are outside every domain the level allows here
            for code, option in options[:1]:
                self.code[node.name], self.pods.leaf_rows[node.name] = code, option
            if (yield from self._step(rest)):
                return True
            self.pods.leaf_rows.pop(node.name, None)
            return False
        for code, option in self._options(node, rows):
            self.code[node.name] = code
            if node.is_leaf:
                self.pods.leaf_rows[node.name] = option
                if (yield from self._place(shape_runs(wanted), option, node, rest)):
                    return True
                del self.pods.leaf_rows[node.name]
                continue
            for chosen in self._selections(node):
                kids = sorted(chosen, key=lambda c: (c.required is None, -len(self._pods_of(c))))
                for before, kid in zip([None, *kids], kids, strict=False):
                    if before is not None and _signature(before) == _signature(kid):
                        self.twin[kid.name] = before.name
                    else:
                        self.twin.pop(kid.name, None)
                if (yield from self._step(rest + [(kid, option) for kid in reversed(kids)])):
                    return True
        return False

    def _place(self, runs: Runs, rows: IntArray, leaf: GroupNode, rest: list[Task]) -> Walk:
        """Every split of the leaf's first shape run over ``rows``, then the next run, then the
        remaining groups. Consecutive splits differ in a few nodes: only those are recharged."""
        if not runs:
            return (yield from self._step(rest))
        run = runs[0]
        ordered = rows[np.argsort(self._order[rows], kind="stable")]
        cap = capacity(self.space, ordered, run[0])
        usable, cap = ordered[cap > 0], cap[cap > 0]
        vec = self.ledger.vector(run[0].requests)
        mark = self.ledger.mark()
        charged = [0] * len(usable)
        alike = len(runs) == 1 and self.domains.split_blind(rows, rest, run[0], self._bound)
        for take, first, end in splits(cap.tolist(), len(run)):
            if self.steps.tick():
                yield
            for position in range(first, end):
                change = take[position] - charged[position]
                if change:
                    self.pods.charge(int(usable[position]), change, vec)
                    charged[position] = take[position]
            if alike and not self._room_left(rest):
                break  # every other split leaves the same room: none can go on either
            self.pods.placed.append((leaf, run, usable, take))
            if (yield from self._place(runs[1:], rows, leaf, rest)):
                return True
            self.pods.placed.pop()
        self.ledger.undo(mark)
        return False

    def _selections(self, node: GroupNode) -> list[tuple[GroupNode, ...]]:
        """Which children to satisfy: all of them, or every choice of the missing number."""
        threshold = self.progress.threshold(node)
        if threshold >= len(node.children):
            return [tuple(node.children)]
        open_ = [c for c in self.progress.order(node) if not self.progress.satisfied(c)]
        missing = max(threshold - (len(node.children) - len(open_)), 0)
        return list(combinations(open_, missing))

    def _options(self, node: GroupNode, rows: IntArray) -> list[tuple[int, IntArray]]:
        """The (domain, rows) to try for ``node`` (``DomainChoices.options``); a group whose
        interchangeable sibling is placed takes a domain from the sibling's on."""
        twin = self.twin.get(node.name)
        lowest = (
            self.code[twin]
            if twin is not None and node.required is not None and node.preferred is None
            else None
        )
        return self.domains.options(node, rows, self.pods.held[node.name], lowest, self._bound(node))

    def _pods_of(self, node: GroupNode) -> list[PodSpec]:
        return [pod for run in self._bound(node) for pod in run]


def _signature(node: GroupNode) -> object:
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
