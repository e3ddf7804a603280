"""Phase 2b: from the chosen domains down to the leaves (Kueue semantics).

Above the slice level the children of *all* chosen domains are pooled, sorted and filled with
the full count again (only the set of parents matters). At and below the slice level (and after
balanced placement) every chosen domain shares exactly its own pods among its own children, in
units of the inner slice layer at that level (1 pod when there is none).
"""

from __future__ import annotations

import numpy as np

from toposched.engine.core.counts import LevelCounts
from toposched.engine.core.greedy import distribute, distribute_each
from toposched.engine.core.ranges import expand
from toposched.engine.core.request import Request
from toposched.engine.core.strategy import Strategy, descent_order
from toposched.topology import IntArray, TopologyTree

_FOLD_LIMIT = 1 << 62  # a folded sort key stays within int64
_RADIX_LIMIT = 1 << 16  # a folded key below this fits 16 bits


def descend(
    tree: TopologyTree,
    counts: list[LevelCounts],
    req: Request,
    level: int,
    chosen: IntArray,
    *,
    balanced: bool = False,
) -> IntArray:
    """Leaves (indices at the lowest level) with their ``pods``/``lead`` set to what they get."""
    strategy = req.strategy
    leaf_level = tree.leaf_level
    current = distribute(
        counts[level], chosen, req.count, req.leader_count, req.slice_size, strategy, slices=True
    )
    if not balanced:
        while level < min(leaf_level, req.slice_level):
            lc = counts[level + 1]
            # Only the set of parents matters; in index order their children come sorted, which
            # the descent order (a total order) sorts faster.
            parents = np.sort(current)
            pooled = descent_order(
                strategy, lc, expand(tree.child_start[level][parents], tree.child_end[level][parents])
            )
            current = distribute(
                lc, pooled, req.count, req.leader_count, req.slice_size, strategy, slices=True
            )
            level += 1
    while level < leaf_level:
        unit = req.slice_size if level < req.slice_level else req.inner_sizes.get(level + 1, 1)
        parent, lc = counts[level], counts[level + 1]
        if req.leader is None or not (parent.lead[parent.loc(current)] > 0).any():
            current = _share_all(
                tree, parent, lc, level, current, unit, strategy, leads=req.leader is not None
            )
            level += 1
            continue
        parts: list[IntArray] = []
        for d in current.tolist():
            p = d - parent.offset
            start, end = tree.children(level, d)
            children = descent_order(strategy, lc, np.arange(start, end, dtype=np.int64))
            if unit > 1:
                # Inner slice layers: slices of the children in this layer's unit. Kueue does this
                # after sorting, so the order still reflects the outer slice counts.
                a, b = start - lc.offset, end - lc.offset
                lc.slices[a:b] = lc.pods[a:b] // unit
                lc.slices_with_leader[a:b] = lc.pods_with_leader[a:b] // unit
            parts.append(
                distribute(
                    lc, children, int(parent.pods[p]), int(parent.lead[p]), unit, strategy, slices=unit > 1
                )
            )
        current = np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)
        level += 1
    return current


def _share_all(
    tree: TopologyTree,
    parent: LevelCounts,
    lc: LevelCounts,
    level: int,
    current: IntArray,
    unit: int,
    strategy: Strategy,
    *,
    leads: bool = True,
) -> IntArray:
    """The loop below for parents without the leader, all at once: each parent's children sorted
    in descent order and filled with exactly the parent's pods (children ranges are disjoint).
    ``leads`` False: the request has no leader, so no child carries a leader mark."""
    starts, ends = tree.child_start[level][current], tree.child_end[level][current]
    lengths = ends - starts
    kids = expand(starts, ends)
    loc = lc.loc(kids)
    slices = lc.slices[loc]
    # Without slice counts (below the slice level) each parent's children are sorted by pods
    # ascending, and the units filled (pods, or pods // unit) keep that order.
    ascending = not slices.any()
    # Stable, and each parent's children come in index order, so index order breaks the last ties.
    kids = kids[_by_parent(lc.pods[loc], None if ascending else slices, lengths, strategy.descending)]
    if unit > 1:
        # As in the loop: the slices in this layer's unit are set after sorting.
        at = lc.loc(kids)
        lc.slices[at] = lc.pods[at] // unit
        lc.slices_with_leader[at] = lc.pods_with_leader[at] // unit
    wanted = parent.pods[parent.loc(current)]
    return distribute_each(
        lc, lengths, kids, wanted, unit, strategy, slices=unit > 1, ascending=ascending, leads=leads
    )


def _by_parent(pods: IntArray, slices: IntArray | None, lengths: IntArray, descending: bool) -> IntArray:
    """Stable order of children listed parent after parent (``lengths`` each): by parent, then
    slices (``descending`` or not; None when all are 0), then pods. Without slices the parent and
    the pods (both >= 0) fold into one key, sorted once instead of once per key (as 16-bit
    integers when it fits them: numpy sorts those stably by radix, about twice as fast)."""
    parents = np.arange(len(lengths), dtype=np.int64)
    if slices is None:
        span = int(pods.max()) + 1 if len(pods) else 1
        if span * len(lengths) < _FOLD_LIMIT:
            key = np.repeat(parents * span, lengths) + pods
            if span * len(lengths) <= _RADIX_LIMIT:
                key = key.astype(np.uint16)
            order: IntArray = np.argsort(key, kind="stable")
            return order
        slices = np.zeros(len(pods), dtype=np.int64)
    return np.lexsort((pods, -slices if descending else slices, np.repeat(parents, lengths)))
