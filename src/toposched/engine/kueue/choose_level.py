"""Phase 2a: choose the level and the domains that hold the whole request (Kueue semantics).

Required: one domain of the requested level or nothing. Preferred: the requested level, then one
level up at a time, and at the top a greedy fill over several domains. Unconstrained: a greedy fill
at its own level, no climbing.
"""

from __future__ import annotations

import numpy as np

from toposched.engine.core.counts import LevelCounts
from toposched.engine.core.greedy import prioritize_leader
from toposched.engine.core.request import Request
from toposched.engine.core.strategy import descent_order, last_domain, level_miss, search_order
from toposched.topology import IntArray, TopologyTree


class NoFitError(Exception):
    """``fit`` of ``needed`` units fit at ``level``; ``best`` is the domain the count refers to.
    Control flow inside the engine only: ``kueue.phases.solve`` returns it as an ``Unschedulable``."""

    def __init__(self, fit: int, needed: int, level: int, best: int | None) -> None:
        super().__init__(f"{fit}/{needed} at level {level}")
        self.fit = fit
        self.needed = needed
        self.level = level
        self.best = best


class NoDomainsError(Exception):
    """The topology has no domain at ``level`` (no member node at all); ``kueue.phases.solve`` returns
    it as an ``Unschedulable``."""

    def __init__(self, level: int) -> None:
        super().__init__(level)
        self.level = level


def find_level(
    tree: TopologyTree, counts: list[LevelCounts], req: Request, level: int
) -> tuple[int, IntArray]:
    """The level where the request is placed and its domains there, in fill order."""
    strategy = req.strategy
    leaders = req.leader_count
    needed = req.count // req.slice_size
    while True:
        n = tree.count(level)
        if n == 0:
            raise NoDomainsError(level)
        lc = counts[level]
        order = search_order(strategy, lc, np.arange(n, dtype=np.int64))
        loc = lc.loc(order)
        capacity = (lc.slices_with_leader if leaders else lc.slices)[loc]
        fits = capacity >= needed
        if leaders:  # the domain must hold the leader too
            fits &= lc.lead[loc] >= leaders
        alone = strategy.level_domain(capacity, fits, needed)
        if alone is not None:
            return level, order[alone : alone + 1]
        if req.required:
            domain, fit = level_miss(strategy, lc, order)
            raise NoFitError(fit, needed, level, domain)
        if level > 0 and not req.unconstrained:
            level -= 1
            continue
        return level, _spread(lc, order, req, needed, level)


def _spread(lc: LevelCounts, order: IntArray, req: Request, needed: int, level: int) -> IntArray:
    """Greedy fill over several domains of one level: the leader's domain first, then the rest
    in descent order; the strategy picks the domain that takes the last pods."""
    strategy = req.strategy
    leaders = req.leader_count
    order = prioritize_leader(lc, order, req.count, leaders, req.slice_size, True)
    chosen: list[int] = []
    remaining = needed
    i = 0
    while leaders > 0 and i < len(order) and lc.lead[int(order[i]) - lc.offset] > 0:
        rest = lc.loc(order[i:])
        d = int(order[i])
        if lc.slices_with_leader[rest[0]] >= remaining:
            d = int(
                order[
                    i
                    + last_domain(strategy, lc.slices_with_leader[rest], remaining, lc.lead[rest] >= leaders)
                ]
            )
        p = d - lc.offset
        chosen.append(d)
        leaders -= int(lc.lead[p])
        remaining -= int(lc.slices_with_leader[p])
        i += 1
    if leaders > 0:
        raise NoFitError(req.leader_count - leaders, needed, level, None)
    if remaining > 0:
        rest = descent_order(strategy, lc, order[i:])
        values = lc.slices[lc.loc(rest)]
        reached = values.cumsum()
        k = int(reached.searchsorted(remaining, side="left"))
        if k >= len(rest):
            total = int(reached[-1]) if len(rest) else 0
            raise NoFitError(needed - (remaining - total), needed, level, None)
        left = remaining - (int(reached[k - 1]) if k else 0)
        last = k + last_domain(strategy, values[k:], left)
        chosen.extend(int(d) for d in rest[:k])
        chosen.append(int(rest[last]))
    return np.asarray(chosen, dtype=np.int64)
