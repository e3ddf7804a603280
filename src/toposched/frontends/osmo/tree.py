"""The design's tree algorithm (steps 1-7) that turns one group's topology requirements into a
PodGroup constraint and a subgroup tree.

1. Requirements are sorted by the pool's key order (coarsest first).
2. Tasks walk down from an unnamed root; a node is one (key, group) under its parent, so the
   same group name under different parents gives different nodes. A node's name is its parent's
   name, ``-``, and its group (the first level: just the group). A node keeps the required flag
   of the task that created it.
3. From the root, single-child nodes are shared by every task: they become the PodGroup's
   constraint (the finest shared required level, plus the finest shared preferred level below it).
4. Below the first branching node every node is a subgroup; non-leaf subgroups carry their own
   level and a parent link, leaves carry the finest level.
5. A task naming fewer levels than its group's deepest task is padded with preferred levels
   (group ``pad``); tasks without topology go to a catch-all branch (``catch-all``, then ``pad``)
   of preferred levels under the branching node, so every leaf sits at the same depth.
6. ``minMember`` is set on leaf subgroups only; without subgroups the PodGroup gets it.
7. Each task maps to its leaf subgroup (the pod label ``kai.scheduler/subgroup-name``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType

from toposched.frontends.osmo.workflow import Requirement

CATCH_ALL = "catch-all"
PAD = "pad"


@dataclass(frozen=True, slots=True)
class SubGroupSpec:
    """One subgroup: its level (node label), whether it is required, parent, leaf minMember."""

    name: str
    level: str
    required: bool
    parent: str | None = None
    min_member: int | None = None


@dataclass(frozen=True, slots=True)
class TopologyTree:
    """The outcome for one group. No subgroups: ``min_member`` counts every task."""

    required: str | None = None
    preferred: str | None = None
    subgroups: tuple[SubGroupSpec, ...] = ()
    task_subgroups: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))


@dataclass(slots=True)
class _Node:
    name: str
    label: str
    required: bool
    children: dict[tuple[str, bool], _Node] = field(default_factory=dict)
    tasks: list[str] = field(default_factory=list)


def build_tree(tasks: Sequence[tuple[str, Sequence[Requirement]]]) -> TopologyTree:
    """Run the algorithm on (task name, requirements sorted coarsest first) in spec order."""
    placed = [(name, reqs) for name, reqs in tasks if reqs]
    if not placed:
        return TopologyTree()
    deepest = max((reqs for _, reqs in placed), key=len)
    root = _Node("", "", False)
    for name, reqs in placed:
        steps = [(r.group, False, r.label, r.required) for r in reqs]
        steps += [(PAD, True, r.label, False) for r in deepest[len(reqs) :]]
        _attach(root, name, steps)

    chain: list[_Node] = []
    node = root
    while len(node.children) == 1:
        node = next(iter(node.children.values()))
        chain.append(node)
    required, preferred = _shared(chain)
    if not node.children:
        return TopologyTree(required, preferred)

    plain = [name for name, reqs in tasks if not reqs]
    if plain:
        rest = deepest[len(chain) :]
        steps = [(CATCH_ALL if i == 0 else PAD, True, r.label, False) for i, r in enumerate(rest)]
        for name in plain:
            _attach(node, name, steps)

    subgroups: list[SubGroupSpec] = []
    mapping: dict[str, str] = {}
    used: set[str] = set()
    for child in node.children.values():
        _emit(child, None, subgroups, mapping, used)
    return TopologyTree(required, preferred, tuple(subgroups), MappingProxyType(mapping))


def _attach(start: _Node, task: str, steps: Sequence[tuple[str, bool, str, bool]]) -> None:
    node = start
    for group, padded, label, required in steps:
        child = node.children.get((group, padded))
        if child is None:
            name = f"{node.name}-{group}" if node.name else group
            child = _Node(name, label, required)
            node.children[(group, padded)] = child
        node = child
    node.tasks.append(task)


def _shared(chain: Sequence[_Node]) -> tuple[str | None, str | None]:
    """Finest shared required level, and the finest shared preferred level below it."""
    required_at = max((i for i, n in enumerate(chain) if n.required), default=-1)
    preferred_at = max((i for i, n in enumerate(chain) if not n.required), default=-1)
    required = chain[required_at].label if required_at >= 0 else None
    preferred = chain[preferred_at].label if preferred_at > required_at else None
    return required, preferred


def _emit(
    node: _Node,
    parent: str | None,
    out: list[SubGroupSpec],
    mapping: dict[str, str],
    used: set[str],
) -> None:
    name = _unique(node.name, used)
    leaf = not node.children
    out.append(SubGroupSpec(name, node.label, node.required, parent, len(node.tasks) if leaf else None))
    for task in node.tasks:
        mapping[task] = name
    for child in node.children.values():
        _emit(child, name, out, mapping, used)


def _unique(name: str, used: set[str]) -> str:
    """Joined names can collide (zone ``a`` + rack ``b-c`` versus zone ``a-b`` + rack ``c``)."""
    candidate, n = name, 1
    while candidate in used:
        n += 1
        candidate = f"{name}-{n}"
    used.add(candidate)
    return candidate
