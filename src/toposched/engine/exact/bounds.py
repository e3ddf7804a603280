"""Capacity cuts for the exact search: what must still fit for a partial placement to go on.

Each test is necessary, not sufficient: a branch that fails one holds no placement, a branch that
passes may still fail later. Capacities come from the ledger's free matrix through the snapshot's
per-shape count (``fits_count``) and the ledger's taint and selector filter.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from toposched.engine.core.members import GroupNode
from toposched.engine.core.rowwise import take_rows
from toposched.engine.core.space import NodeSpace, TopoView
from toposched.model import PodSpec
from toposched.snapshot import fits_count
from toposched.topology import IntArray

Runs = list[list[PodSpec]]  # pods in runs of one shape (requests, tolerations, selector)


def shape_runs(pods: Sequence[PodSpec]) -> Runs:
    """Consecutive pods of one shape together."""
    runs: Runs = []
    for pod in pods:
        if runs and runs[-1][0].shape == pod.shape:
            runs[-1].append(pod)
        else:
            runs.append([pod])
    return runs


def capacity(space: NodeSpace, rows: IntArray, pod: PodSpec) -> IntArray:
    """Pods like ``pod`` each row still holds (0 where its taints or selector rule it out)."""
    allowed = space.eligible(pod.tolerations, tuple(sorted(pod.node_selector.items())))
    cap = fits_count(take_rows(space.ledger.free, rows), space.ledger.columns, pod.requests)
    return np.where(allowed[rows], cap, 0)


def fits(space: NodeSpace, rows: IntArray, runs: Runs) -> bool:
    """Every run fits ``rows`` on its own."""
    return all(capacity(space, rows, run[0]).sum() >= len(run) for run in runs)


def room_left(space: NodeSpace, groups: Sequence[tuple[Runs, IntArray]]) -> bool:
    """The groups (their runs, their rows) still to place can all fit: the runs of one shape that
    share rows fit those rows together; the runs of one request vector fit the union of their
    rows together; and with several vectors, their total fits the free total."""
    shared: dict[int, tuple[IntArray, dict[object, list[PodSpec]]]] = {}
    for runs, rows in groups:
        by_shape = shared.setdefault(id(rows), (rows, {}))[1]
        for run in runs:
            by_shape.setdefault(run[0].shape, []).extend(run)
    pooled: dict[bytes, tuple[list[PodSpec], list[IntArray]]] = {}
    for rows, by_shape in shared.values():
        if not fits(space, rows, list(by_shape.values())):
            return False
        for pods in by_shape.values():
            same, parts = pooled.setdefault(space.ledger.vector(pods[0].requests).tobytes(), ([], []))
            same += pods
            parts.append(rows)
    for pods, parts in pooled.values():
        if len(parts) > 1:
            union = np.unique(np.concatenate(parts))
            if fits_count(space.ledger.free[union], space.ledger.columns, pods[0].requests).sum() < len(pods):
                return False
    if len(pooled) > 1:
        need = sum(space.ledger.vector(pods[0].requests) * len(pods) for pods, _ in pooled.values())
        union = np.unique(np.concatenate([rows for _, parts in pooled.values() for rows in parts]))
        room = np.maximum(space.ledger.free[union], 0).sum(axis=0)
        if (need > room).any():
            return False
    return True


def slice_room(
    space: NodeSpace, groups: Sequence[tuple[GroupNode, Runs, IntArray]], lowest: Mapping[str, int]
) -> bool:
    """Groups (with their runs and rows) that each need one domain of the same level for the
    same number of pods of one shape, inside the same rows, fit only if those domains hold that
    many whole groups: per domain, its capacity for the shape divided by the group's pods (whole
    groups only), summed over the domains, reaches the number of such groups. This is how many
    slices a domain holds; a count of pods alone lets slices straddle domains. ``lowest``: per
    group name, the first domain (index) it may take, when it may not take them all (twins take
    domains in order)."""
    alike: dict[tuple[int, str | None, str, object, int], tuple[IntArray, PodSpec, list[GroupNode]]] = {}
    for node, runs, rows in groups:
        if node.required is None or not runs or len({run[0].shape for run in runs}) != 1:
            continue
        size = sum(len(run) for run in runs)
        key = (id(rows), node.topology, node.required, runs[0][0].shape, size)
        alike.setdefault(key, (rows, runs[0][0], []))[2].append(node)
    for (_, topology, required, _, size), (rows, pod, nodes) in alike.items():
        if len(nodes) < 2 and not nodes[0].children:
            continue  # one group: the per-domain fit of its options says as much
        view = space.views.get(topology if topology is not None else space.default)
        level = view.tree.level_index(required) if view is not None else None
        if view is None or level is None:
            continue
        codes = view.codes[level][rows]
        inside = codes >= max((lowest.get(n.name, 0) for n in nodes), default=0)
        cap = np.where(inside, capacity(space, rows, pod), 0)
        if int(_whole_groups(view, nodes[0], size, rows, cap, level).sum()) < len(nodes):
            return False
    return True


def _whole_groups(
    view: TopoView, node: GroupNode, size: int, rows: IntArray, cap: IntArray, level: int
) -> IntArray:
    """Per domain of ``level``, how many whole groups like ``node`` (``size`` pods) it holds: its
    capacity in whole groups and, when ``node`` is cut into slices that each require one domain
    of a level (Kueue's slice layers), as many as its domains of that level hold whole slices
    for (recursively): ten free racks spread over four blocks hold no block of four racks."""
    codes = view.codes[level][rows]
    known = codes >= 0
    count = view.tree.count(level)
    per = np.bincount(codes[known], weights=cap[known], minlength=count).astype(np.int64) // size
    kids = node.children
    first = kids[0] if kids else None
    if first is None or first.required is None or size != _pod_count(node) or not _equal_slices(node):
        return per
    inner = view.tree.level_index(first.required)
    if inner is None or inner < level:
        return per
    kid_size = size // len(kids)
    held = _whole_groups(view, kids[0], kid_size, rows, cap, inner)
    parent = np.zeros(len(held), dtype=np.int64)
    child_codes = view.codes[inner][rows]
    both = known & (child_codes >= 0)
    parent[child_codes[both]] = codes[both]
    return np.minimum(per, np.bincount(parent, weights=held, minlength=count).astype(np.int64) // len(kids))


def _equal_slices(node: GroupNode) -> bool:
    """``node``'s children are interchangeable slices: all of them needed, none running, each
    requiring the same level with as many pods (so every one of them needs a whole domain)."""
    kids = node.children
    sizes = {_pod_count(k) for k in kids}
    return (
        node.min_sub_group is None
        and len(sizes) == 1
        and all(
            k.required == kids[0].required
            and k.topology == kids[0].topology
            and k.min_member is None
            and k.min_sub_group is None
            and not any(g.running for g in k.walk())
            for k in kids
        )
    )


def _pod_count(node: GroupNode) -> int:
    return len(node.pods) + sum(_pod_count(k) for k in node.children)


def tree_order(space: NodeSpace) -> IntArray:
    """Each row's rank in the default topology's tree order (rows outside it last), so the pods
    of a split fill neighbouring nodes and consecutive ranks land together."""
    view = space.views[space.default]
    keys = [np.where(code >= 0, code, np.iinfo(np.int64).max) for code in view.codes]
    order = np.lexsort((np.arange(space.size), *reversed(keys)))
    rank = np.empty(space.size, dtype=np.int64)
    rank[order] = np.arange(space.size, dtype=np.int64)
    return rank
