"""Turning leaf counts into Kueue TopologyAssignments and pods into nodes."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from itertools import repeat
from typing import Any, cast

import numpy as np

from toposched.engine.core.space import NodeSpace
from toposched.model import (
    HOSTNAME,
    DomainCount,
    Gang,
    Group,
    LazyRecords,
    PodPlacement,
    PodSpec,
    TopologyAssignment,
)
from toposched.snapshot import Snapshot, fits_count
from toposched.topology import IntArray, TopologyTree

# tuple.__new__ is what a named tuple's ``_make`` calls, without its Python-level wrapper: the
# per-pod and per-domain results are built by C-level iterators only.
_NEW_TUPLE = cast(Callable[[type[Any], Iterable[Any]], Any], tuple.__new__)


def assignment_levels(tree: TopologyTree) -> tuple[str, ...]:
    """``(kubernetes.io/hostname,)`` for hostname topologies, every level otherwise (Kueue)."""
    return (HOSTNAME,) if tree.hostname_is_lowest else tree.levels


def assignment(tree: TopologyTree, leaf_counts: Iterable[tuple[int, int]]) -> TopologyAssignment:
    """Pods per leaf as a TopologyAssignment: domains in path order (Kueue sorts by the full
    level values even when only the hostname is written), zero counts dropped, repeats merged."""
    pairs = leaf_counts if isinstance(leaf_counts, list | tuple) else list(leaf_counts)
    merged = dict(pairs)  # what the solver gives: distinct leaves, positive counts
    if len(merged) != len(pairs) or min(merged.values(), default=1) <= 0:
        merged = {}
        for leaf, count in pairs:
            if count > 0:
                merged[leaf] = merged.get(leaf, 0) + count
    leaves = sorted(merged)
    rows = zip(map(tree.leaf_values.__getitem__, leaves), map(merged.__getitem__, leaves), strict=True)
    domains = tuple(map(_NEW_TUPLE, repeat(DomainCount), rows))
    return TopologyAssignment(assignment_levels(tree), domains)


def leaf_assignment(tree: TopologyTree, leaves: IntArray, pods: IntArray) -> TopologyAssignment:
    """``assignment`` for distinct leaves in path (index) order and their pod counts, all > 0,
    given as arrays (what the solver gives, never changed afterwards). The domain records are
    built when first read."""

    def domains() -> Iterable[DomainCount]:
        rows = zip(map(tree.leaf_values.__getitem__, leaves.tolist()), pods.tolist(), strict=True)
        return map(_NEW_TUPLE, repeat(DomainCount), rows)

    return TopologyAssignment(assignment_levels(tree), LazyRecords(domains, len(leaves)))


_COUNT_SHARE = 16  # count by marking when the values are at least one in this many of the domains


def tally(domains: IntArray, size: int) -> tuple[IntArray, IntArray]:
    """The distinct values of ``domains`` (all in [0, ``size``)), ascending, and how often each
    occurs: what ``np.unique(domains, return_counts=True)`` gives. When they are a good share
    of the domains, counting into one slot per domain is several times cheaper than sorting."""
    if len(domains) * _COUNT_SHARE < size:
        # Sorted, each value where it first occurs: ``np.unique``'s way without its set-up.
        ordered = np.sort(domains)
        first = np.empty(len(ordered), dtype=np.bool_)
        first[:1] = True
        np.not_equal(ordered[1:], ordered[:-1], out=first[1:])
        at = first.nonzero()[0]
        counts = np.empty(len(at), dtype=np.int64)  # from each first occurrence to the next
        np.subtract(at[1:], at[:-1], out=counts[:-1])
        counts[-1:] = len(ordered) - at[-1:]
        return ordered[at], counts
    counts = np.bincount(domains, minlength=size)
    found = np.flatnonzero(counts)
    return found, counts[found].astype(np.int64)


def ordered_pods(leaf: Group) -> list[PodSpec]:
    """A PodSet's pods by index: rank r takes slot r of its assignment."""
    pods = leaf.pods
    if leaf.in_index_order:  # the usual case, known since the IR was built
        return list(pods)
    indices = [pod.index for pod in pods]
    return [pods[i] for i in sorted(range(len(pods)), key=indices.__getitem__)]  # stable


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


def place_on_rows(tree: TopologyTree, leaf: Group, rows: IntArray) -> list[PodPlacement]:
    """The pods of ``leaf`` in index order on the nodes ``rows`` (one per pod, in order): what
    ``place_pods`` gives for those nodes and their leaves, built column by column with C-level
    loops (one tuple per pod is the only per-pod work)."""
    pods = leaf.pods if leaf.in_index_order else tuple(ordered_pods(leaf))
    indices, names = [pod.index for pod in pods], [pod.name for pod in pods]
    rows = rows[: len(pods)]
    columns = zip(
        names,
        repeat(leaf.name),
        indices,
        tree.node_name_array[rows].tolist(),
        tree.node_leaf_path[rows].tolist(),
    )
    placed: list[PodPlacement] = list(map(_NEW_TUPLE, repeat(PodPlacement), columns))
    return placed  # zip stopped with the last node


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


def pods_and_assignments(
    gang: Gang, space: NodeSpace, where: Mapping[tuple[str, str], int]
) -> tuple[tuple[PodPlacement, ...], dict[str, TopologyAssignment]]:
    """Pods with a node (``where``: (leaf, pod) -> row; running ones included) in index order,
    and pods per leaf domain of the leaf's topology, as the faithful solvers report them."""
    pods: list[PodPlacement] = []
    assignments: dict[str, TopologyAssignment] = {}
    for leaf in gang.leaves():
        if not leaf.pods:
            continue  # a group of no pods gets no assignment, as a Kueue PodSet of count 0
        view = space.views.get(_topology_of(gang, leaf.name) or space.default) or space.views[space.default]
        counts: list[tuple[int, int]] = []
        for pod in sorted(leaf.pods, key=lambda p: (p.index, p.name)):
            row = where.get((leaf.name, pod.name))
            if row is None:
                continue
            domain = int(view.codes[-1][row])
            path = view.tree.path(view.tree.leaf_level, domain) if domain >= 0 else ()
            if domain >= 0:
                counts.append((domain, 1))
            pods.append(PodPlacement(pod.name, leaf.name, pod.index, space.names[row], path))
        assignments[leaf.name] = assignment(view.tree, counts)
    return tuple(pods), assignments


def _topology_of(gang: Gang, leaf: str) -> str | None:
    """The topology a leaf's domains are reported in: its own, else its nearest ancestor's."""
    stack = [(gang.root, gang.topology)]
    while stack:
        group, inherited = stack.pop()
        topology = group.topology if group.topology is not None else inherited
        if group.is_leaf and group.name == leaf:
            return topology
        stack += [(child, topology) for child in group.children]
    return None
