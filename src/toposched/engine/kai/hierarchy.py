"""The hierarchical solver: KAI's allocation walk over a group tree with per-group constraints.

Steps: pods that already run (``PodSpec.node``) are charged and count toward the minima. While
the root is unsatisfied, one all-or-nothing attempt places exactly the missing minima (gang
phase); failure leaves the gang pending. Then elastic steps place one extra pod each until a
step fails or nothing is pending; a failed elastic step never undoes the gang.

One attempt: the root asks for its candidate node sets; for each, in order, its members are
solved in member order inside that set (a leaf asks for its own candidates, then places its pods
one by one on the best node); any failure rolls back to the checkpoint and the next candidate of
that group is tried. Siblings are not moved: the parent's next candidate re-solves them all.
Members that running pods pin (a required level above a running pod) are solved before their
siblings, whose domain is still free to choose. The policy orders domains and nodes
(``place_hierarchical``).

Output: ``Placement.pods`` holds every pod that has a node (running ones included) and leaves
out pods that stay pending (elastic pods without room); ``assignments`` counts those pods per
leaf group over the group's own topology.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import partial
from operator import attrgetter

import numpy as np

from toposched.engine.core.caches import EngineCaches
from toposched.engine.core.greedy import greedy_pick
from toposched.engine.core.members import Attempt, GroupNode, Progress, build, select
from toposched.engine.core.messages import Reasons
from toposched.engine.core.output import leaf_assignment, place_on_rows, tally
from toposched.engine.core.policy_registry import PlacementPolicy
from toposched.engine.core.space import NodeSpace, RowScores, TopoView
from toposched.engine.core.strategy import Strategy
from toposched.engine.core.usage import PodRows
from toposched.engine.kai.binpack import fill_rows, pack_resource
from toposched.engine.kai.candidates import candidates
from toposched.model import Gang, Group, PodPlacement, PodSpec, TopologyAssignment, Unschedulable
from toposched.model.placement import LazyRecords, Placement
from toposched.snapshot import BoolArray, Snapshot
from toposched.topology import IntArray, TopologyTree

MAX_TRIES = 20_000  # candidate sets tried per attempt before giving up (bounded backtracking)
_NO_ROWS: IntArray = np.zeros(0, dtype=np.int64)
_NO_ROWS.setflags(write=False)


class Solver:
    """Mutable state of one hierarchical placement."""

    def __init__(self, space: NodeSpace, root: GroupNode, reasons: Reasons, policy: PlacementPolicy) -> None:
        self.space = space
        self.root = root
        self.reasons = reasons
        self.strategy: dict[str, Strategy | None] = {}
        self._strategies(root, policy, False)
        self.pinned: set[str] = set()  # groups with a required level whose pods already run
        self.progress = Progress()
        # Per solver leaf, the row of each pod (by position in ``GroupNode.pods``), -1 without one.
        self.rows: dict[str, IntArray] = {}
        self.log: list[tuple[GroupNode, IntArray]] = []  # (solver leaf, positions placed), newest last
        self.failure: Unschedulable | None = None  # the first reason an attempt failed
        self.tries = 0
        self.leaves = [n for n in root.walk() if n.is_leaf]
        self.subtree = {n.name: [m for m in n.walk() if m.is_leaf] for n in root.walk()}

    def _strategies(self, node: GroupNode, policy: PlacementPolicy, constrained: bool) -> None:
        constrained = constrained or node.required is not None or node.preferred is not None
        self.strategy[node.name] = policy.for_group(constrained)
        for child in node.children:
            self._strategies(child, policy, constrained)

    # -- bookkeeping --------------------------------------------------------------------------

    def pin(self) -> None:
        """Charge and count pods that already run; note the groups they pin (a required level
        with such a pod below it, and every group above one)."""
        if not any(leaf.running for leaf in self.leaves):
            return
        for node in self.root.walk():
            if node.required is not None and any(leaf.running for leaf in self.subtree[node.name]):
                self.pinned.add(node.name)
        for node in reversed(self.root.walk()):  # children before parents
            if any(child.name in self.pinned for child in node.children):
                self.pinned.add(node.name)
        for leaf in self.leaves:
            running = [(i, pod.node) for i, pod in enumerate(leaf.pods) if pod.node is not None]
            if not running:
                continue
            self.progress.add(leaf, np.asarray([i for i, _ in running], dtype=np.int64))
            rows = self._rows(leaf)
            for (i, on), pod in zip(running, (leaf.pods[i] for i, _ in running), strict=True):
                row = self.space.row.get(on)
                if row is not None:
                    ledger = self.space.ledger
                    ledger.charge(np.asarray([row]), np.ones(1, dtype=np.int64), ledger.vector(pod.requests))
                    rows[i] = row

    def _rows(self, leaf: GroupNode) -> IntArray:
        found = self.rows.get(leaf.name)
        if found is None:
            found = self.rows[leaf.name] = np.full(len(leaf.pods), -1, dtype=np.int64)
        return found

    def _record(self, node: GroupNode, positions: IntArray, rows: IntArray) -> None:
        """The pods at ``positions`` placed on ``rows`` (one row per pod)."""
        self.progress.add(node, positions)
        self._rows(node)[positions] = rows
        self.log.append((node, positions))

    def mark(self) -> tuple[int, int]:
        return self.space.ledger.mark(), len(self.log)

    def undo(self, mark: tuple[int, int]) -> None:
        self.space.ledger.undo(mark[0])
        while len(self.log) > mark[1]:
            node, positions = self.log.pop()
            self.progress.remove(node, positions)
            self.rows[node.name][positions] = -1

    def held(self, node: GroupNode) -> IntArray:
        """Rows holding pods of ``node``'s subtree, ascending."""
        found = [
            rows
            for leaf in self.subtree[node.name]
            if self.progress.count(leaf) and (rows := self.rows.get(leaf.name)) is not None
        ]
        if not found:  # no pod of the subtree has a node
            return np.zeros(0, dtype=np.int64)
        rows = np.concatenate(found) if len(found) > 1 else found[0]
        return np.unique(rows[rows >= 0])

    def note(self, failure: Unschedulable) -> None:
        if self.failure is None:
            self.failure = failure

    # -- the walk -----------------------------------------------------------------------------

    def allocate(self, node: GroupNode, attempt: Attempt, rows: IntArray, scores: RowScores | None) -> bool:
        pods = attempt.of(node)
        if not pods:
            return True
        held = self.held(node) if node.constrained else _NO_ROWS  # read for constraints only
        found = candidates(self.space, node, pods, rows, held, self.reasons, self.strategy[node.name])
        if isinstance(found, Unschedulable):
            self.note(found)
            return False
        own = found.scores if found.scores is not None else scores
        # Members whose domain running pods already fix go first: they cannot move, a sibling
        # placed before them could take their last room (KAI's member order otherwise).
        members = sorted(attempt.order.get(node.name, node.children), key=lambda m: m.name not in self.pinned)
        for chosen in found.sets:
            self.tries += 1
            if self.tries > MAX_TRIES:
                self.note(
                    self.reasons.refuse(
                        f"gave up after trying {MAX_TRIES} candidate node sets", group=node.name
                    )
                )
                return False
            mark = self.mark()
            if node.is_leaf:
                ok = self.place_pods(node, pods, attempt.positions[node.name], chosen, own)
            else:
                ok = all(self.allocate(child, attempt, chosen, own) for child in members)
            if ok:
                return True
            self.undo(mark)
        return False

    def place_pods(
        self,
        node: GroupNode,
        pods: list[PodSpec],
        positions: IntArray,
        rows: IntArray,
        scores: RowScores | None,
    ) -> bool:
        """Each pod (``positions``: where they are in ``node.pods``) on the best node of
        ``rows``, pods of one shape in one go."""
        space = self.space
        i = 0
        while i < len(pods):
            first = pods[i]
            run = len(pods) - i if node.same_shape else _same_shape_run(pods, i)
            vec = space.ledger.vector(first.requests)
            allowed = space.eligible(first.tolerations, tuple(sorted(first.node_selector.items())))
            strategy = self.strategy[node.name]
            if strategy is None:
                at, takes = fill_rows(space, rows, vec, allowed, scores, pack_resource(first), run)
            else:
                pairs = np.asarray(
                    fill_greedy(space, rows, vec, allowed, scores, strategy, run), dtype=np.int64
                )
                at, takes = pairs.reshape(-1, 2).T
            if len(at):
                space.ledger.charge(at, takes, vec, distinct=True)  # a fill gives each row once
                placed = int(takes.sum())
                self._record(node, positions[i : i + placed], np.repeat(at, takes))
                i += placed
                run -= placed
            if run:
                self.note(
                    self.reasons.refuse(
                        f"pod {pods[i].name} of {node.leaf} fits no node of the chosen domain "
                        f"({len(rows)} nodes)",
                        group=node.leaf,
                    )
                )
                return False
        return True

    def attempt(self, attempt: Attempt) -> bool:
        """One all-or-nothing attempt; on failure nothing of it stays."""
        self.tries = 0
        mark = self.mark()
        if self.allocate(self.root, attempt, self.space.every_row, None):
            return True
        self.undo(mark)
        return False


def fill_greedy(
    space: NodeSpace,
    rows: IntArray,
    vec: IntArray,
    allowed: BoolArray,
    ranks: RowScores | None,
    strategy: Strategy,
    count: int,
) -> list[tuple[int, int]]:
    """Rows for ``count`` identical pods under a Kueue ordering, as (row, pods) pairs; fewer in
    total when room runs out. With ``ranks`` (preferred-level domain per row) the pods are first
    shared out over those domains, then over the nodes of each, by Kueue's greedy."""
    if len(rows) == 0 or count <= 0:
        return []
    room = space.ledger.copies(rows, vec)
    ok = allowed[rows] & (room > 0)
    rows, room = rows[ok], room[ok]
    if ranks is None:
        picks = greedy_pick(room, space.name_rank[rows], count, strategy, whole=False)
        return [(int(rows[i]), take) for i, take in picks]
    group = ranks[rows]
    group = np.where(group >= 0, group, np.iinfo(np.int64).max)  # outside the preferred level: last
    keys, inverse = np.unique(group, return_inverse=True)
    per_group = np.bincount(inverse, weights=room, minlength=len(keys)).astype(np.int64)
    out: list[tuple[int, int]] = []
    for g, share in greedy_pick(per_group, keys, count, strategy, whole=True):
        inside = inverse == g
        picks = greedy_pick(room[inside], space.name_rank[rows[inside]], share, strategy, whole=False)
        out += [(int(rows[inside][i]), take) for i, take in picks]
    return out


def _same_shape_run(pods: list[PodSpec], start: int) -> int:
    """How many pods from ``start`` on share the first one's requests, tolerations and selector."""
    first = pods[start]
    rest = pods[start:]
    if all(
        list(map(attrgetter(part), rest)).count(getattr(first, part)) == len(rest)  # compared in C
        for part in ("requests", "tolerations", "node_selector")
    ):
        return len(rest)  # the usual case: all the remaining pods share the first one's shape
    end = start + 1
    while end < len(pods):
        pod = pods[end]
        if not (
            (pod.requests is first.requests or pod.requests == first.requests)
            and pod.tolerations == first.tolerations
            and (pod.node_selector is first.node_selector or pod.node_selector == first.node_selector)
        ):
            break
        end += 1
    return end - start


def place_hierarchical(
    gang: Gang,
    snapshot: Snapshot,
    *,
    policy: PlacementPolicy,
    snapshots: Mapping[str, Snapshot] | None = None,
    caches: EngineCaches | None = None,
) -> Placement | Unschedulable:
    """Place ``gang`` with KAI's semantics (see the module docstring); never changes the snapshots.

    ``policy`` orders domains and nodes: BINPACK is KAI's order; BESTFIT, LEASTFREE and MIXED
    apply Kueue's orderings to the same candidate domains (MIXED: BestFit for groups under a
    required or preferred level, LeastFreeCapacity for the rest); BALANCED falls back to BestFit.
    The result reports ``policy``.
    """
    with NodeSpace.open(snapshot, snapshots, caches or EngineCaches()) as space:
        return _place(gang, space, policy)


def _place(gang: Gang, space: NodeSpace, policy: PlacementPolicy) -> Placement | Unschedulable:
    reasons = Reasons(gang.name, space.default, policy.name)
    root = build(gang.root, gang.topology, running=gang.needs_hierarchy)  # Kueue-shaped: none runs
    solver = Solver(space, root, reasons, policy)
    solver.pin()
    progress = solver.progress
    if not progress.satisfied(root):
        attempt = select(root, progress)
        if attempt.short:
            leaf, missing, pending = attempt.short[0]
            return reasons.refuse(
                f"subgroup {leaf} needs {missing} more pods to reach its minimum but only {pending} are pending",
                group=leaf,
                fit=pending,
                needed=missing,
            )
        if attempt.empty or not solver.attempt(attempt):
            return solver.failure or reasons.refuse("the gang has no pods to place")
    for _ in range(sum(len(leaf.pods) for leaf in solver.leaves)):
        if not progress.has_pending(root):  # what ``select`` would find: an empty attempt
            break
        attempt = select(root, progress)
        if attempt.empty or attempt.short or not solver.attempt(attempt):
            break
    return _output(gang, space, solver)


def _pod_order(pod: PodSpec) -> tuple[int, str]:
    return pod.index, pod.name


def _view_of(space: NodeSpace, leaf: GroupNode) -> TopoView:
    name = leaf.topology if leaf.topology is not None else leaf.parent_topology
    return space.views.get(name or space.default) or space.views[space.default]


def _output(gang: Gang, space: NodeSpace, solver: Solver) -> Placement:
    """The placement: assignments now (they need only the leaves' rows), pod records on first read."""
    views = {leaf.leaf: _view_of(space, leaf) for leaf in solver.leaves}
    # An IR leaf's pods in index order are its solver leaves' pods, in walk order (slices).
    parts: dict[str, list[IntArray]] = {}
    in_order: dict[str, bool] = {}
    for part in solver.leaves:
        rows = solver.rows.get(part.name)
        parts.setdefault(part.leaf, []).append(
            rows if rows is not None else np.full(len(part.pods), -1, dtype=np.int64)
        )
        in_order[part.leaf] = part.in_order
    builders: list[Callable[[], list[PodPlacement]]] = []
    on_rows: list[tuple[Group, IntArray]] = []  # (leaf, its pods' rows) where those are tree rows
    trees: dict[int, TopologyTree] = {}
    size = 0
    assignments: dict[str, TopologyAssignment] = {}
    for leaf in gang.leaves():
        if not leaf.pods:
            continue  # a group of no pods gets no assignment, as a Kueue PodSet of count 0
        view = views.get(leaf.name) or space.views[space.default]
        tree = view.tree
        ordered = leaf.pods if in_order.get(leaf.name, True) else sorted(leaf.pods, key=_pod_order)
        found = parts.get(leaf.name, [])
        rows = np.concatenate(found) if len(found) != 1 else found[0]
        placed = rows >= 0
        if not placed.all():  # pods that stay pending (elastic pods without room) are left out
            ordered = [pod for pod, row in zip(ordered, placed.tolist(), strict=True) if row]
            rows = rows[placed]
        domains = view.codes[-1][rows]
        if view.bounds is not None and ordered is leaf.pods:  # the main topology's rows are its tree's nodes
            builders.append(partial(place_on_rows, tree, leaf, rows))
            on_rows.append((leaf, rows))
            trees[id(tree)] = tree
        else:
            builders.append(partial(_records, tree, space.names, leaf.name, list(ordered), rows, domains))
        size += len(rows)
        leaves, counts = tally(domains[domains >= 0], tree.count(tree.leaf_level))
        assignments[leaf.name] = leaf_assignment(tree, leaves, counts)

    def records() -> list[PodPlacement]:
        return [pod for make in builders for pod in make()]

    # Every leaf on rows of one tree: what the placement takes per node is summed from them.
    pods: LazyRecords[PodPlacement] = LazyRecords(records, size)
    if len(on_rows) == len(builders) and len(trees) == 1:
        (tree,) = trees.values()
        pods = PodRows(records, size, tree, tuple(on_rows))
    return Placement(gang.name, space.default, solver.reasons.policy, pods, assignments)


def _records(
    tree: TopologyTree,
    names: Sequence[str],
    group: str,
    pods: Sequence[PodSpec],
    rows: IntArray,
    domains: IntArray,
) -> list[PodPlacement]:
    """Pod records on rows of the node space (a topology other than the main one)."""
    paths = tree.paths[tree.leaf_level]
    return [
        PodPlacement(pod.name, group, pod.index, names[row], paths[d] if d >= 0 else ())
        for pod, row, d in zip(pods, rows.tolist(), domains.tolist(), strict=True)
    ]
