"""Where the two placements differ only in which of several equally scored nodes each pod took.

Given the same domains, each side's spread of every PodGroup is checked with ``oracle``: if both
are spreads kube-scheduler's per-pod choice can make (each side replayed on its own earlier
PodGroups, in kube-scheduler's order: a tree's children by creation time, then name), the
difference is one of random tie-breaks, not of rules.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from copy import deepcopy
from typing import Any

from tests.realkube.sidebyside.gangs import Leaf, Unit
from tests.realkube.sidebyside.oracle import NodeState, cluster_state, pod_shape, reachable


def kube_order(unit: Unit, groups: Sequence[Mapping[str, Any]]) -> list[str]:
    """The unit's PodGroups in the order kube-scheduler evaluates them: depth first from the
    root, siblings by (creationTimestamp, name)."""
    mine = {g["metadata"]["name"]: g for g in groups if g["metadata"]["name"] in unit.objects}
    children: dict[str | None, list[Mapping[str, Any]]] = {}
    for group in mine.values():
        children.setdefault(group["spec"].get("parentCompositePodGroupName"), []).append(group)
    order: list[str] = []

    def walk(parent: str | None) -> None:
        kids = sorted(
            children.get(parent, []),
            key=lambda g: (g["metadata"].get("creationTimestamp", ""), g["metadata"]["name"]),
        )
        for kid in kids:
            if kid["kind"] == "PodGroup":
                order.append(kid["metadata"]["name"])
            else:
                walk(kid["metadata"]["name"])

    walk(None)
    return order


def both_tied(
    unit: Unit,
    items: Sequence[Mapping[str, Any]],
    pods: Sequence[Mapping[str, Any]],
    groups: Sequence[Mapping[str, Any]],
    theirs: Mapping[str, str | None],
    ours: Mapping[str, str | None],
) -> bool | None:
    """True when both sides put every PodGroup in the same domains and each side's spread over
    nodes is one kube-scheduler can make; False when not; None when the search gave up.
    ``theirs`` maps kube pod names, ``ours`` toposched's, to nodes."""
    leaves = {leaf.name: leaf for leaf in unit.leaves}
    if not _same_domains(unit, items, theirs, ours, leaves):
        return False
    by_pod = {p["metadata"]["name"]: p for p in pods}
    order = [leaves[name] for name in kube_order(unit, groups)]
    found_kube = _replay(unit, items, by_pod, order, theirs, kube=True)
    found_ours = _replay(unit, items, by_pod, order, ours, kube=False)
    if found_kube is False or found_ours is False:
        return False
    return None if found_kube is None or found_ours is None else True


def _same_domains(
    unit: Unit,
    items: Sequence[Mapping[str, Any]],
    theirs: Mapping[str, str | None],
    ours: Mapping[str, str | None],
    leaves: Mapping[str, Leaf],
) -> bool:
    labels = _labels(items)
    for scope in unit.scopes:
        kube_values = {
            labels[n].get(scope.key)
            for name in scope.leaves
            for p in leaves[name].pods
            if (n := theirs.get(p))
        }
        our_values = {
            labels[n].get(scope.key)
            for name in scope.leaves
            for p in leaves[name].toposched_pods
            if (n := ours.get(p))
        }
        if kube_values != our_values:
            return False
    return all(
        bool([p for p in leaf.pods if theirs.get(p)]) == bool([p for p in leaf.toposched_pods if ours.get(p)])
        for leaf in unit.leaves
    )


def _replay(
    unit: Unit,
    items: Sequence[Mapping[str, Any]],
    by_pod: Mapping[str, Mapping[str, Any]],
    order: Sequence[Leaf],
    placed: Mapping[str, str | None],
    *,
    kube: bool,
) -> bool | None:
    """Each PodGroup's spread, in ``order``, reachable on what the earlier ones left."""
    state = cluster_state(items)
    labels = _labels(items)
    unknown = False
    for leaf in order:
        names = leaf.pods if kube else leaf.toposched_pods
        nodes = [placed.get(p) for p in names]
        target = Counter(n for n in nodes if n)
        if not target:
            continue
        shape = pod_shape(by_pod[leaf.pods[0]])
        inside = _placement(unit, leaf, labels, target)
        found = reachable([state[n] for n in sorted(state) if n in inside], shape, target, len(names))
        if found is False:
            return False
        unknown = unknown or found is None
        for node, count in target.items():
            state[node] = deepcopy(state[node])
            state[node].add(shape.requests, count)
    return None if unknown else True


def _placement(
    unit: Unit, leaf: Leaf, labels: Mapping[str, Mapping[str, str]], target: Counter[str]
) -> set[str]:
    """The nodes of the placement the PodGroup's pods went to: every node sharing their value of
    each key of the groups it is in."""
    wanted: dict[str, str] = {}
    any_node = next(iter(target))
    for scope in unit.scopes:
        if leaf.name in scope.leaves:
            value = labels[any_node].get(scope.key)
            if value is not None:
                wanted[scope.key] = value
    return {n for n, own in labels.items() if all(own.get(k) == v for k, v in wanted.items())}


def _labels(items: Sequence[Mapping[str, Any]]) -> dict[str, Mapping[str, str]]:
    return {
        i["metadata"]["name"]: i["metadata"].get("labels") or {} for i in items if i.get("kind") == "Node"
    }


__all__ = ["NodeState", "both_tied", "kube_order"]
