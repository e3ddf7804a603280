"""The hierarchical solver: KAI's allocation walk over a group tree with per-group constraints.

Steps: pods that already run (``PodSpec.node``) are charged and count toward the minima. While
the root is unsatisfied, one all-or-nothing attempt places exactly the missing minima (gang
phase); failure leaves the gang pending. Then elastic steps place one extra pod each until a
step fails or nothing is pending; a failed elastic step never undoes the gang.

One attempt: the root asks for its candidate node sets; for each, in order, its members are
solved in member order inside that set (a leaf asks for its own candidates, then places its pods
one by one on the best node); any failure rolls back to the checkpoint and the next candidate of
that group is tried. Siblings are not moved: the parent's next candidate re-solves them all.

Output: ``Placement.pods`` holds every pod that has a node (running ones included) and leaves
out pods that stay pending (elastic pods without room); ``assignments`` counts those pods per
leaf group over the group's own topology.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from toposched.engine import messages
from toposched.engine.candidates import NoFit, candidates
from toposched.engine.members import Attempt, Progress, SNode, build, select
from toposched.engine.output import assignment
from toposched.engine.policies.binpack import fill_nodes, pack_resource
from toposched.engine.space import NodeSpace, TopoView
from toposched.model import Gang, PodPlacement, PodSpec, Policy, TopologyAssignment, Unschedulable
from toposched.model.placement import Placement
from toposched.snapshot import Snapshot
from toposched.topology import IntArray

MAX_TRIES = 20_000  # candidate sets tried per attempt before giving up (bounded backtracking)


class Solver:
    """Mutable state of one hierarchical placement."""

    def __init__(self, space: NodeSpace, root: SNode) -> None:
        self.space = space
        self.root = root
        self.progress = Progress()
        self.where: dict[tuple[str, str], int] = {}  # (IR leaf, pod) -> row
        self.log: list[tuple[str, str, str]] = []  # (solver leaf, IR leaf, pod), newest last
        self.failure: NoFit | None = None
        self.tries = 0
        self.leaves = [n for n in root.walk() if n.is_leaf]
        self.subtree = {n.name: [m for m in n.walk() if m.is_leaf] for n in root.walk()}

    # -- bookkeeping --------------------------------------------------------------------------

    def pin(self) -> None:
        """Charge and count pods that already run."""
        for leaf in self.leaves:
            for pod in leaf.pods:
                if pod.node is None:
                    continue
                self.progress.active.setdefault(leaf.name, set()).add(pod.name)
                row = self.space.row.get(pod.node)
                if row is not None:
                    self.space.charge(row, self.space.vector(pod.requests))
                    self.where[(leaf.leaf, pod.name)] = row

    def _record(self, node: SNode, pod: PodSpec, row: int) -> None:
        self.progress.active.setdefault(node.name, set()).add(pod.name)
        self.where[(node.leaf, pod.name)] = row
        self.log.append((node.name, node.leaf, pod.name))

    def mark(self) -> tuple[int, int]:
        return self.space.mark(), len(self.log)

    def undo(self, mark: tuple[int, int]) -> None:
        self.space.rollback(mark[0])
        while len(self.log) > mark[1]:
            name, leaf, pod = self.log.pop()
            self.progress.active[name].discard(pod)
            del self.where[(leaf, pod)]

    def held(self, node: SNode) -> IntArray:
        rows = [
            self.where[(leaf.leaf, name)]
            for leaf in self.subtree[node.name]
            for name in self.progress.active.get(leaf.name, ())
            if (leaf.leaf, name) in self.where
        ]
        return np.asarray(sorted(set(rows)), dtype=np.int64)

    def note(self, failure: NoFit) -> None:
        if self.failure is None:
            self.failure = failure

    # -- the walk -----------------------------------------------------------------------------

    def allocate(self, node: SNode, attempt: Attempt, rows: IntArray, scores: IntArray | None) -> bool:
        pods = attempt.of(node)
        if not pods:
            return True
        found = candidates(self.space, node, pods, rows, self.held(node))
        if isinstance(found, NoFit):
            self.note(found)
            return False
        own = found.scores if found.scores is not None else scores
        members = attempt.order.get(node.name, node.children)
        for chosen in found.sets:
            self.tries += 1
            if self.tries > MAX_TRIES:
                self.note(NoFit(f"gave up after trying {MAX_TRIES} candidate node sets", node.name))
                return False
            mark = self.mark()
            if node.is_leaf:
                ok = self.place_pods(node, pods, chosen, own)
            else:
                ok = all(self.allocate(child, attempt, chosen, own) for child in members)
            if ok:
                return True
            self.undo(mark)
        return False

    def place_pods(self, node: SNode, pods: list[PodSpec], rows: IntArray, scores: IntArray | None) -> bool:
        """Each pod on the best node of ``rows``, pods of one shape in one go."""
        space = self.space
        i = 0
        while i < len(pods):
            first = pods[i]
            run = _same_shape_run(pods, i)
            vec = space.vector(first.requests)
            allowed = space.eligible(first.tolerations, tuple(sorted(first.node_selector.items())))
            for row, count in fill_nodes(space, rows, vec, allowed, scores, pack_resource(first), run):
                space.charge(row, vec * count)
                for pod in pods[i : i + count]:
                    self._record(node, pod, row)
                i += count
                run -= count
            if run:
                self.note(
                    NoFit(
                        f"pod {pods[i].name} of {node.leaf} fits no node of the chosen domain "
                        f"({len(rows)} nodes)",
                        node.leaf,
                    )
                )
                return False
        return True

    def attempt(self, attempt: Attempt) -> bool:
        """One all-or-nothing attempt; on failure nothing of it stays."""
        self.tries = 0
        mark = self.mark()
        everything = np.arange(self.space.size, dtype=np.int64)
        if self.allocate(self.root, attempt, everything, None):
            return True
        self.undo(mark)
        return False


def _same_shape_run(pods: list[PodSpec], start: int) -> int:
    """How many pods from ``start`` on share the first one's requests, tolerations and selector."""
    first = pods[start]
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
    gang: Gang, snapshot: Snapshot, *, snapshots: Mapping[str, Snapshot] | None = None
) -> Placement | Unschedulable:
    """Place ``gang`` with KAI's semantics (see the module docstring); never changes the snapshots."""
    space = NodeSpace(snapshot, snapshots)
    root = build(gang.root, gang.topology)
    solver = Solver(space, root)
    solver.pin()
    progress = solver.progress
    if not progress.satisfied(root):
        attempt = select(root, progress)
        if attempt.short:
            leaf, missing, pending = attempt.short[0]
            return messages.build(
                gang.name,
                space.default,
                Policy.BINPACK,
                f"subgroup {leaf} needs {missing} more pods to reach its minimum but only {pending} are pending",
                group=leaf,
                fit=pending,
                needed=missing,
            )
        if attempt.empty or not solver.attempt(attempt):
            return _failed(gang, space, solver.failure)
    for _ in range(sum(len(leaf.pods) for leaf in solver.leaves)):
        attempt = select(root, progress)
        if attempt.empty or attempt.short or not solver.attempt(attempt):
            break
    return _output(gang, space, solver)


def _failed(gang: Gang, space: NodeSpace, failure: NoFit | None) -> Unschedulable:
    if failure is None:
        return messages.build(gang.name, space.default, Policy.BINPACK, "the gang has no pods to place")
    return messages.build(
        gang.name,
        failure.topology or space.default,
        Policy.BINPACK,
        failure.message,
        group=failure.group,
        level=failure.level,
        best_domain=failure.domain,
        fit=failure.fit,
        needed=failure.needed,
    )


def _view_of(space: NodeSpace, leaf: SNode) -> TopoView:
    name = leaf.topology if leaf.topology is not None else leaf.parent_topology
    return space.views.get(name or space.default) or space.views[space.default]


def _output(gang: Gang, space: NodeSpace, solver: Solver) -> Placement:
    views = {leaf.leaf: _view_of(space, leaf) for leaf in solver.leaves}
    pods: list[PodPlacement] = []
    assignments: dict[str, TopologyAssignment] = {}
    for leaf in gang.leaves():
        view = views.get(leaf.name) or space.views[space.default]
        tree = view.tree
        counts: list[tuple[int, int]] = []
        for pod in sorted(leaf.pods, key=lambda p: (p.index, p.name)):
            row = solver.where.get((leaf.name, pod.name))
            if row is None:
                continue
            domain = int(view.codes[-1][row])
            path = tree.path(tree.leaf_level, domain) if domain >= 0 else ()
            if domain >= 0:
                counts.append((domain, 1))
            pods.append(PodPlacement(pod.name, leaf.name, pod.index, space.names[row], path))
        assignments[leaf.name] = assignment(tree, counts)
    return Placement(gang.name, space.default, Policy.BINPACK, tuple(pods), assignments)
