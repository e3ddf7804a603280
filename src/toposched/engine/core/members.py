"""The group tree as the hierarchical solver sees it, and which pods one attempt tries (KAI v0.15+).

A leaf is satisfied when its running and placed pods reach its minimum (``min_member``; None =
all its pods). An inner group is satisfied when ``min_sub_group`` of its direct children are
(None = all). One attempt ("gang phase" while the root is unsatisfied) takes, for the first K
children in member order, exactly what each unsatisfied one is missing; once satisfied ("elastic
phase") it takes one extra pod from the first child in member order that has any pending pod.
Member order: unsatisfied first, then fill ratio (satisfied / threshold, threshold 0 last), then
name.

Kueue slice layers become inner groups: every ``size`` consecutive pods of a leaf form a child
that requires one domain of the layer's level.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from operator import attrgetter

import numpy as np

from toposched.model import Group, PodSpec
from toposched.snapshot import BoolArray
from toposched.topology import IntArray


@dataclass(slots=True)
class GroupNode:
    """One node of the solver tree. ``leaf`` is the IR leaf the pods belong to."""

    name: str
    required: str | None
    preferred: str | None
    topology: str | None
    min_member: int | None = None
    min_sub_group: int | None = None
    children: list[GroupNode] = field(default_factory=list)
    pods: list[PodSpec] = field(default_factory=list)
    leaf: str = ""
    parent_topology: str | None = None  # nearest ancestor's topology, for reporting domains
    same_shape: bool = False  # every pod of the subtree has one shape (from the IR leaves' fact)
    running: bool = False  # some pod already runs (``PodSpec.node``)
    in_order: bool = True  # the IR leaf lists its pods in index order (``pods`` is that list)

    @property
    def is_leaf(self) -> bool:
        return not self.children

    @property
    def constrained(self) -> bool:
        return self.topology is not None or self.required is not None or self.preferred is not None

    def walk(self) -> list[GroupNode]:
        out = [self]
        for child in self.children:
            out += child.walk()
        return out


def build(group: Group, inherited: str | None = None, *, running: bool = True) -> GroupNode:
    """The solver tree of an IR group (pods in index order). ``running`` False: the caller
    knows no pod of the group runs yet."""
    topo = group.topology if group.topology is not None else inherited
    if group.is_leaf:
        in_order = group.in_index_order
        pods = list(group.pods) if in_order else sorted(group.pods, key=lambda p: (p.index, p.name))
        node = GroupNode(
            group.name,
            group.required,
            group.preferred,
            group.topology,
            min_member=group.min_member,
            pods=pods,
            leaf=group.name,
            parent_topology=topo,
            same_shape=group.same_shape,
            running=running and group.running,
            in_order=in_order,
        )
        if group.slices:
            _slice(node, pods, group, 0)
        return node
    children = [build(child, topo, running=running) for child in group.children]
    shapes = {kid.pods[0].shape for kid in _leaves(children) if kid.pods}
    return GroupNode(
        group.name,
        group.required,
        group.preferred,
        group.topology,
        min_sub_group=group.min_sub_group,
        children=children,
        leaf="",
        parent_topology=topo,
        same_shape=all(kid.same_shape for kid in children) and len(shapes) <= 1,
    )


def _leaves(nodes: list[GroupNode]) -> list[GroupNode]:
    """The solver leaves under ``nodes`` (slices cut a leaf's pods among its children)."""
    return [leaf for node in nodes for leaf in node.walk() if leaf.is_leaf]


def _slice(node: GroupNode, pods: list[PodSpec], group: Group, layer: int) -> None:
    """Cut ``pods`` into chunks of the layer's size, each its own required child (recursively)."""
    spec = group.slices[layer]
    size = max(spec.size, 1)
    kids: list[GroupNode] = []
    for i in range(0, len(pods), size):
        chunk = pods[i : i + size]
        kid = GroupNode(
            f"{node.name}/{layer}-{i // size:06d}",
            spec.level,
            None,
            node.topology,
            pods=chunk,
            leaf=group.name,
            parent_topology=node.parent_topology,
            same_shape=node.same_shape,
            running=node.running and _any_running(chunk),
            in_order=node.in_order,
        )
        if layer + 1 < len(group.slices):
            _slice(kid, chunk, group, layer + 1)
        kids.append(kid)
    node.children = kids
    node.pods = []
    node.min_member = None


def _any_running(pods: list[PodSpec]) -> bool:
    return list(map(attrgetter("node"), pods)).count(None) != len(pods)  # counted in C


@dataclass(slots=True)
class Progress:
    """Pods with a node so far (running or placed), per solver leaf: a flag per pod by its
    position in ``GroupNode.pods``, and how many are set."""

    flags: dict[str, BoolArray] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)

    def add(self, node: GroupNode, positions: IntArray) -> None:
        """The pods at ``positions`` (distinct, none with a node yet) have a node now."""
        flags = self.flags.get(node.name)
        if flags is None:
            flags = self.flags[node.name] = np.zeros(len(node.pods), dtype=np.bool_)
        self.counts[node.name] = self.count(node) + len(positions)
        flags[positions] = True

    def remove(self, node: GroupNode, positions: IntArray) -> None:
        """The pods at ``positions`` (distinct, each with a node) have none again."""
        self.flags[node.name][positions] = False
        self.counts[node.name] -= len(positions)

    def count(self, node: GroupNode) -> int:
        return self.counts.get(node.name, 0)

    def pending_positions(self, node: GroupNode) -> IntArray:
        """Positions in ``node.pods`` of the pods without a node, ascending."""
        if not self.count(node):
            return np.arange(len(node.pods), dtype=np.int64)
        return np.flatnonzero(~self.flags[node.name])

    def pending(self, node: GroupNode) -> list[PodSpec]:
        if not self.count(node):
            return list(node.pods)
        return list(map(node.pods.__getitem__, self.pending_positions(node).tolist()))

    def minimum(self, node: GroupNode) -> int:
        return len(node.pods) if node.min_member is None else node.min_member

    def threshold(self, node: GroupNode) -> int:
        if node.is_leaf:
            return self.minimum(node)
        return len(node.children) if node.min_sub_group is None else node.min_sub_group

    def done(self, node: GroupNode) -> int:
        """Leaf: pods with a node; inner group: satisfied children."""
        if node.is_leaf:
            return self.count(node)
        return sum(1 for child in node.children if self.satisfied(child))

    def satisfied(self, node: GroupNode) -> bool:
        return self.done(node) >= self.threshold(node)

    def has_pending(self, node: GroupNode) -> bool:
        if node.is_leaf:
            return self.count(node) < len(node.pods)
        return any(self.has_pending(child) for child in node.children)

    def order(self, node: GroupNode) -> list[GroupNode]:
        """Children in member order."""

        def key(child: GroupNode) -> tuple[bool, bool, float, str]:
            threshold, done = self.threshold(child), self.done(child)
            ratio = done / threshold if threshold else 0.0
            return (done >= threshold, threshold == 0, ratio, child.name)  # satisfied first

        return sorted(node.children, key=key)


@dataclass(slots=True)
class Attempt:
    """The pods one attempt tries, per solver leaf (with their positions in ``GroupNode.pods``),
    and the member order of each inner group."""

    pods: dict[str, list[PodSpec]] = field(default_factory=dict)
    positions: dict[str, IntArray] = field(default_factory=dict)
    order: dict[str, list[GroupNode]] = field(default_factory=dict)
    short: list[tuple[str, int, int]] = field(default_factory=list)  # leaf, missing, pending

    @property
    def empty(self) -> bool:
        return not any(self.pods.values())

    def of(self, node: GroupNode) -> list[PodSpec]:
        """Pods of this attempt in the subtree of ``node`` (a list the attempt may share with a
        leaf: read only)."""
        if node.is_leaf:
            return self.pods.get(node.name, [])
        if len(node.children) == 1:
            return self.of(node.children[0])
        out: list[PodSpec] = []
        for child in node.children:
            out += self.of(child)
        return out


def select(root: GroupNode, progress: Progress) -> Attempt:
    """The pods of the next attempt (gang phase or one elastic step)."""
    attempt = Attempt()
    _select(root, progress, attempt)
    return attempt


def _select(node: GroupNode, progress: Progress, attempt: Attempt) -> None:
    if node.is_leaf:
        pending = progress.pending_positions(node)
        if progress.satisfied(node):
            _take(attempt, node, pending[:1])
            return
        missing = progress.minimum(node) - progress.count(node)
        if len(pending) < missing:
            attempt.short.append((node.name, missing, len(pending)))
        _take(attempt, node, pending[: max(missing, 0)])
        return
    members = progress.order(node)
    attempt.order[node.name] = members
    if not progress.satisfied(node):
        for child in members[: progress.threshold(node)]:
            if not progress.satisfied(child):
                _select(child, progress, attempt)
        return
    for child in members:
        if progress.has_pending(child):
            _select(child, progress, attempt)
            return


def _take(attempt: Attempt, node: GroupNode, positions: IntArray) -> None:
    """The attempt tries the pods of leaf ``node`` at ``positions``."""
    attempt.positions[node.name] = positions
    if len(positions) == len(node.pods):
        attempt.pods[node.name] = node.pods  # shared: no one changes either list
    else:
        attempt.pods[node.name] = list(map(node.pods.__getitem__, positions.tolist()))
