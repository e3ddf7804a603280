"""Balanced placement for preferred requests (Kueue's TASBalancedPlacement, KEP "Balanced placement").

Instead of packing greedily, find the group of sibling domains (the children of one domain one
level above the preferred level L) where the smallest share per used domain, T, is largest, prune
everything below T, pick the smallest, tightest subset of domains with a small dynamic program
and give every chosen domain T slices plus a fair part of the rest. T is estimated from a greedy
simulation, as upstream does. Returns None whenever the balanced algorithm does not apply; the
caller then uses BestFit.
"""

from __future__ import annotations

import math

import numpy as np

from toposched.engine.core.counts import LevelCounts, aggregate
from toposched.engine.core.ranges import expand
from toposched.engine.core.strategy import SpreadRequest, Strategy, descent_order, search_order
from toposched.topology import IntArray, TopologyTree


class Subtree:
    """Independent copies of the numbers of sibling domains [start, end) of ``level`` and of
    everything below them (each level's descendants form one contiguous index range)."""

    def __init__(
        self, tree: TopologyTree, counts: list[LevelCounts], level: int, start: int, end: int
    ) -> None:
        self.tree = tree
        self.top = level
        self.levels: dict[int, LevelCounts] = {}
        lo, hi = start, end
        for lvl in range(level, tree.depth):
            self.levels[lvl] = counts[lvl].copy(lo, hi)
            if lvl < tree.leaf_level:
                lo, hi = int(tree.child_start[lvl][lo]), int(tree.child_end[lvl][hi - 1])

    def __getitem__(self, level: int) -> LevelCounts:
        return self.levels[level]

    def domains(self, level: int) -> IntArray:
        lc = self.levels[level]
        return np.arange(lc.offset, lc.offset + len(lc.pods), dtype=np.int64)

    def _ranges(self, level: int, index: int) -> list[tuple[LevelCounts, int, int]]:
        out = []
        for lvl in range(level, self.tree.depth):
            start, end = self.tree.descendants(level, index, lvl)
            lc = self.levels[lvl]
            out.append((lc, start - lc.offset, end - lc.offset))
        return out

    def clear(self, level: int, index: int) -> None:
        """Forget all capacity of one domain and its subtree."""
        for lc, a, b in self._ranges(level, index):
            for array in (lc.pods, lc.pods_with_leader, lc.slices, lc.slices_with_leader, lc.lead):
                array[a:b] = 0

    def clear_leader(self, level: int, index: int) -> None:
        """Keep one subtree for workers only."""
        for lc, a, b in self._ranges(level, index):
            for array in (lc.pods_with_leader, lc.slices_with_leader, lc.lead):
                array[a:b] = 0

    def refill(self, req: SpreadRequest) -> None:
        """Recompute every level from the leaves up (no inner-layer rounding, as upstream)."""
        tree = self.tree
        leaves = self.levels[tree.leaf_level]
        if tree.leaf_level == req.slice_level:
            leaves.slices[:] = leaves.pods // req.slice_size
            leaves.slices_with_leader[:] = leaves.pods_with_leader // req.slice_size
        for lvl in range(tree.leaf_level - 1, self.top - 1, -1):
            lc = self.levels[lvl]
            aggregate(
                tree,
                lc,
                self.levels[lvl + 1],
                lvl,
                lc.offset,
                lc.offset + len(lc.pods),
                slice_level=req.slice_level,
                slice_size=req.slice_size,
                inner_sizes={},
                leader=req.leader_count > 0,
            )

    def store(self, counts: list[LevelCounts]) -> None:
        for lvl, lc in self.levels.items():
            counts[lvl].store(lc)


def evaluate(
    lc: LevelCounts, domains: IntArray, needed: int, leaders: int, strategy: Strategy
) -> tuple[bool, int, int | None, int | None]:
    """Greedy simulation: does the request fit, how many domains it uses, and the last domain used
    with the leader and without it."""
    chosen = 0
    last_leader: int | None = None
    last: int | None = None
    i = 0
    if leaders > 0:
        order = search_order(strategy, lc, domains)
        while leaders > 0 and i < len(order) and lc.lead[int(order[i]) - lc.offset] > 0:
            p = int(order[i]) - lc.offset
            chosen += 1
            last_leader = int(order[i])
            leaders -= int(lc.lead[p])
            needed -= int(lc.slices_with_leader[p])
            i += 1
        rest = descent_order(strategy, lc, order[i:])
    else:
        rest = descent_order(strategy, lc, domains)
    if leaders > 0:
        return False, 0, None, None
    for d in rest.tolist():
        p = d - lc.offset
        if needed <= 0 or lc.slices[p] <= 0:
            break
        chosen += 1
        last = d
        needed -= int(lc.slices[p])
    if needed > 0:
        return False, 0, None, None
    return True, chosen, last_leader, last


def _entropy(values: list[int]) -> float:
    total = sum(values)
    if total == 0:
        return 0.0
    entropy = 0.0
    for v in values:
        if v > 0:
            share = v / total
            entropy += -share * math.log2(share)
    return entropy


def select_subset(
    sub: Subtree,
    level: int,
    domains: IntArray,
    needed: int,
    leaders: int,
    size: int,
    by_entropy: bool,
    strategy: Strategy,
) -> list[int] | None:
    """Fewest domains that fit (as many as the greedy uses), then least total capacity, domains
    taken in path order or (``by_entropy``) leader-capable, larger and more even ones first."""
    lc = sub[level]
    fit, best_count, _, _ = evaluate(lc, domains, needed, leaders, strategy)
    if not fit:
        return None
    ordered = sorted(domains.tolist())
    if by_entropy and level < sub.tree.leaf_level:
        below = sub[level + 1]

        def key(d: int) -> tuple[int, int, float, int]:
            start, end = sub.tree.children(level, d)
            pods = below.pods[start - below.offset : end - below.offset].tolist()
            p = d - lc.offset
            return (-int(lc.lead[p]), -int(lc.slices_with_leader[p]), -_entropy(pods), d)

        ordered.sort(key=key)
    elif by_entropy:
        ordered.sort(
            key=lambda d: (-int(lc.lead[d - lc.offset]), -int(lc.slices_with_leader[d - lc.offset]), 0.0, d)
        )
    table: list[dict[int, dict[int, list[int]]]] = [{} for _ in range(best_count + 1)]
    table[0][leaders] = {needed * size: []}
    for d in ordered:
        p = d - lc.offset
        for i in range(best_count, 0, -1):
            for before_leaders in sorted(table[i - 1]):
                row = table[i - 1][before_leaders]
                for before_pods in sorted(row):
                    if before_leaders <= 0 and before_pods <= 0:
                        continue
                    placement = [*row[before_pods], d]
                    if before_leaders > 0 and lc.lead[p] > 0:
                        after = table[i].setdefault(before_leaders - int(lc.lead[p]), {})
                        after.setdefault(before_pods - int(lc.pods_with_leader[p]), placement)
                    if lc.slices[p] > 0:
                        after = table[i].setdefault(before_leaders, {})
                        after.setdefault(before_pods - int(lc.pods[p]), placement)
    done = table[best_count].get(0, {})
    left = [k for k in done if k <= 0]
    return done[max(left)] if left else None


def _prune(sub: Subtree, req: SpreadRequest, domains: IntArray, threshold: int) -> None:
    leader = req.leader_count > 0
    level = sub.top

    def prune_node(lvl: int, d: int) -> None:
        lc = sub[lvl]
        p = d - lc.offset
        if lc.slices[p] < threshold:
            sub.clear(lvl, d)
        elif leader and lc.lead[p] > 0 and lc.slices_with_leader[p] < threshold:
            sub.clear_leader(lvl, d)

    if level < sub.tree.leaf_level:
        for d in domains.tolist():
            start, end = sub.tree.children(level, d)
            for c in range(start, end):
                prune_node(level + 1, c)
    sub.refill(req)
    for d in domains.tolist():
        prune_node(level, d)


def _spread_evenly(
    lc: LevelCounts, domains: list[int], needed: int, leaders: int, size: int, threshold: int
) -> bool:
    extra = needed - len(domains) * threshold
    for d in domains:
        p = d - lc.offset
        if leaders > 0:
            take = min(int(lc.slices_with_leader[p]) - threshold, extra)
            lc.lead[p] = 1
            leaders -= 1
        elif extra > 0:
            take = min(int(lc.slices[p]) - threshold, extra)
            lc.lead[p] = 0
        else:
            take = 0
            lc.lead[p] = 0
        lc.slices[p] = threshold + take
        lc.slices_with_leader[p] = threshold + take
        lc.pods[p] = (threshold + take) * size
        lc.pods_with_leader[p] = lc.pods[p] - lc.lead[p]
        extra -= take
    return extra <= 0 and leaders <= 0


def balanced_place(
    tree: TopologyTree, counts: list[LevelCounts], req: SpreadRequest
) -> tuple[int, IntArray] | None:
    """The level and domains (with their shares set in ``counts``) of a balanced placement, or
    None when it does not apply (then ``counts`` is untouched)."""
    level = req.level
    needed = req.count // req.slice_size
    leaders = req.leader_count
    if level == 0:
        # one group of every top domain; none when no node is usable (Kueue then falls back too)
        groups = [(0, tree.count(0))] if tree.count(0) else []
    else:
        groups = [tree.children(level - 1, parent) for parent in range(tree.count(level - 1))]
    below = level < req.slice_level
    best: Subtree | None = None
    best_threshold = 0
    best_domains = 0
    for start, end in groups:
        sub = Subtree(tree, counts, level, start, end)
        domains = sub.domains(level)
        lower = (
            expand(tree.child_start[level][start:end], tree.child_end[level][start:end]) if below else domains
        )
        fits, used, last_leader, last = evaluate(
            sub[level + 1 if below else level], lower, needed, leaders, req.strategy
        )
        if not fits:
            continue
        lower_lc = sub[level + 1 if below else level]
        threshold = needed // used
        if last_leader is not None:
            threshold = min(threshold, int(lower_lc.slices_with_leader[last_leader - lower_lc.offset]))
        if last is not None:
            threshold = min(threshold, int(lower_lc.slices[last - lower_lc.offset]))
        reserved = threshold
        if leaders > 0 and last is not None:
            reserved = min(threshold, int(lower_lc.slices_with_leader[last - lower_lc.offset]))
        if threshold < best_threshold:
            continue
        _prune(sub, req, domains, threshold)
        fits, used, _, _ = evaluate(sub[level], domains, needed, leaders, req.strategy)
        if not fits and reserved < threshold:
            if reserved <= 0 or reserved < best_threshold:
                continue
            threshold = reserved
            sub = Subtree(tree, counts, level, start, end)
            _prune(sub, req, domains, threshold)
            fits, used, _, _ = evaluate(sub[level], domains, needed, leaders, req.strategy)
        if not fits:
            continue
        if threshold > best_threshold or (threshold == best_threshold and used < best_domains):
            best, best_threshold, best_domains = sub, threshold, used
    if best is None or best_threshold <= 0:
        return None
    current = best.domains(level)
    fit_level = level
    if below:
        subset = select_subset(best, level, current, needed, leaders, req.slice_size, True, req.strategy)
        if subset is None:
            return None
        chosen = np.asarray(subset, dtype=np.int64)
        current = expand(tree.child_start[level][chosen], tree.child_end[level][chosen])
        fit_level = level + 1
    subset = select_subset(best, fit_level, current, needed, leaders, req.slice_size, False, req.strategy)
    if subset is None or needed < len(subset) * best_threshold:
        return None
    lc = best[fit_level]
    ordered = search_order(req.strategy, lc, np.asarray(subset, dtype=np.int64))
    if not _spread_evenly(lc, ordered.tolist(), needed, leaders, req.slice_size, best_threshold):
        return None
    best.store(counts)
    return fit_level, ordered
