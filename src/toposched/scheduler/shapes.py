"""Refusals remembered per gang shape while the cycle's capacity stays the same.

The engine is deterministic: the same gang shape on the same snapshots gets the same answer. So
once a gang is refused, every gang of the same shape that comes after it, before anything is
charged on or given back to the cycle's view (``CycleView.changes``), gets that refusal without
asking the engine again. Once the cluster is full, a queue of many alike gangs costs one
placement per shape instead of one per gang, and every refusal is exactly the one the engine
would have given (told as the gang's own).

A shape is everything of a gang that decides where it fits: the gang and its group tree without
the gang's name, namespace, priority and queue, the root group's name (front ends name it after the
gang) and pod names, plus the topologies (by name and levels) and the policy it is placed under.
A refusal whose text names its gang or root group is not remembered. ``SHAPE_FIELDS`` names the
IR fields this reads, so a field added to the IR is noticed (a test compares it with the
dataclasses). A search bounded by the clock (``search_seconds``) may stop at a different step
each time: that one refusal then stands for the run of alike gangs.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import replace

from toposched.model import Gang, Group, PodSpec, Unschedulable

# Per IR dataclass, the fields a shape reads and the ones it leaves out on purpose.
SHAPE_FIELDS: dict[type, tuple[frozenset[str], frozenset[str]]] = {
    Gang: (
        frozenset({"root", "topology", "min_member", "kind", "policy", "default_policy", "semantics"}),
        # The queue and the declared run time decide nothing of the fit.
        frozenset({"name", "namespace", "priority", "queue", "run_seconds"}),
    ),
    Group: (
        frozenset(
            {
                "name",  # but the root group's
                "required",
                "preferred",
                "slices",
                "min_member",
                "min_sub_group",
                "children",
                "pods",
                "topology",
                "role",
            }
        ),
        frozenset(),
    ),
    PodSpec: (frozenset({"index", "requests", "tolerations", "node_selector", "node"}), frozenset({"name"})),
}


def shape_of(gang: Gang, topologies: Sequence[str], policy: str) -> Hashable:
    """The key under which refusals of ``gang`` are shared: equal keys, equal answers on the
    same snapshots. ``topologies``: the keys of every topology the gang is placed on."""
    head = (gang.topology, gang.min_member, gang.kind, gang.policy, gang.default_policy, gang.semantics)
    return (tuple(topologies), policy, head, _group(gang.root, root=True))


def _group(group: Group, *, root: bool = False) -> Hashable:
    return (
        None if root else group.name,
        group.required,
        group.preferred,
        group.slices,
        group.min_member,
        group.min_sub_group,
        group.topology,
        group.role,
        tuple(_group(child) for child in group.children),
        _pods(group.pods),
    )


def _pods(pods: Sequence[PodSpec]) -> Hashable:
    """Pods as runs of consecutive indices with one shape: ``(first index, count, shape)``."""
    runs: list[tuple[int, int, Hashable]] = []
    last: Hashable = None
    first = count = 0
    for pod in pods:
        selector = tuple(sorted(pod.node_selector.items())) if pod.node_selector else ()
        shape = (pod.requests, pod.tolerations, selector, pod.node)
        if count and shape == last and pod.index == first + count:
            count += 1
            continue
        if count:
            runs.append((first, count, last))
        first, count, last = pod.index, 1, shape
    if count:
        runs.append((first, count, last))
    return tuple(runs)


class Refusals:
    """The last refusal per shape, with the view's ``changes`` count it was given at."""

    def __init__(self) -> None:
        self._known: dict[Hashable, tuple[Unschedulable, str, int]] = {}  # + root group name, changes

    def get(self, shape: Hashable, gang: Gang, changes: int) -> Unschedulable | None:
        """The refusal of ``shape`` on the view as it is after ``changes`` changes, told as
        ``gang``'s own; None when there is none."""
        entry = self._known.get(shape)
        if entry is None or entry[2] != changes:
            return None
        known, root, _ = entry
        return replace(known, gang=gang.name, group=gang.root.name if known.group == root else known.group)

    def remember(self, shape: Hashable, gang: Gang, result: Unschedulable, changes: int) -> None:
        """Keep ``gang``'s refusal, given on the view as it is after ``changes`` changes."""
        text = result.message + result.note
        if gang.name not in text and gang.root.name not in text:
            self._known[shape] = (result, gang.root.name, changes)
