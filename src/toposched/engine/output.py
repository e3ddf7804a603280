"""Turning leaf counts into Kueue TopologyAssignments and pods into nodes."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import repeat

import numpy as np

from toposched.model import HOSTNAME, DomainCount, Group, PodPlacement, PodSpec, TopologyAssignment
from toposched.snapshot import Snapshot, fits_count
from toposched.topology import TopologyTree


def assignment_levels(tree: TopologyTree) -> tuple[str, ...]:
    """``(kubernetes.io/hostname,)`` for hostname topologies, every level otherwise (Kueue)."""
    return (HOSTNAME,) if tree.hostname_is_lowest else tree.levels


def assignment_values(tree: TopologyTree, leaf: int) -> tuple[str, ...]:
    path = tree.path(tree.leaf_level, leaf)
    return path[-1:] if tree.hostname_is_lowest else path


def assignment(tree: TopologyTree, leaf_counts: Iterable[tuple[int, int]]) -> TopologyAssignment:
    """Pods per leaf as a TopologyAssignment: domains in path order (Kueue sorts by the full
    level values even when only the hostname is written), zero counts dropped, repeats merged."""
    merged: dict[int, int] = {}
    for leaf, count in leaf_counts:
        if count > 0:
            merged[leaf] = merged.get(leaf, 0) + count
    paths = tree.paths[-1]
    if tree.hostname_is_lowest:
        domains = tuple(DomainCount(paths[leaf][-1:], merged[leaf]) for leaf in sorted(merged))
    else:
        domains = tuple(DomainCount(paths[leaf], merged[leaf]) for leaf in sorted(merged))
    return TopologyAssignment(assignment_levels(tree), domains)


def ordered_pods(leaf: Group) -> list[PodSpec]:
    """A PodSet's pods by index: rank r takes slot r of its assignment."""
    return sorted(leaf.pods, key=lambda p: p.index)


def place_pods(
    tree: TopologyTree, leaf: Group, pods: Sequence[PodSpec], slots: Sequence[tuple[int, int | None]]
) -> list[PodPlacement]:
    """Pods paired with (leaf, node) slots, in order."""
    paths = tree.paths[-1]
    names = tree.node_names
    return [
        PodPlacement(pod.name, leaf.name, pod.index, None if node is None else names[node], paths[domain])
        for pod, (domain, node) in zip(pods, slots, strict=False)
    ]


def place_on_nodes(
    tree: TopologyTree, leaf: Group, pods: Sequence[PodSpec], nodes: Sequence[tuple[int, int]]
) -> list[PodPlacement]:
    """Pods in order on (node, pods) pairs, in order: what ``place_pods`` gives for the slots of
    those pairs, built column by column (one ``PodPlacement`` per pod is the only per-pod work)."""
    index = [node for node, count in nodes for _ in range(count)][: len(pods)]
    names, paths, leaf_of = tree.node_names, tree.paths[-1], tree.node_domain[-1]
    if not index:
        return []
    domains = leaf_of[np.asarray(index, dtype=np.int64)].tolist()
    count = len(index)
    return list(
        map(
            PodPlacement,
            [pod.name for pod in pods[:count]],
            repeat(leaf.name, count),
            [pod.index for pod in pods[:count]],
            [names[i] for i in index],
            [paths[d] for d in domains],
        )
    )


def slots_in_leaf(snapshot: Snapshot, leaf: Group, domain: int, count: int) -> list[tuple[int, int | None]]:
    """Nodes for ``count`` pods already known to sit in one leaf: the leaf's node, or first fit in
    node-name order by free capacity (the first node when nothing fits any more)."""
    tree = snapshot.tree
    members = tree.leaf_nodes(domain)
    if len(members) == 1:
        return [(domain, members.start)] * count
    pods = leaf.pods[0].requests if leaf.pods else None
    caps = (
        fits_count(snapshot.free[members.start : members.stop], snapshot.columns, pods).tolist()
        if pods is not None
        else [0] * len(members)
    )
    out: list[tuple[int, int | None]] = []
    for offset, cap in enumerate(caps):
        take = min(cap, count - len(out))
        out += [(domain, members.start + offset)] * take
    out += [(domain, members.start)] * (count - len(out))
    return out
