"""The protocol every greedy domain ordering (``toposched.engine.policies``) follows, and what
the solvers derive from its answers.

A Kueue-style placement asks an ordering three questions: which way domains are sorted by free
slices (``descending``), which one domain of the requested level takes the whole request
(``level_domain``), and which domain takes the last pods of a fill (``last_domains``). The
orders (``search_order``, ``descent_order``), the single-list ``last_domain`` and the domain a
refusal reports (``level_miss``) are derived here from those answers, the same for every
ordering. The Kueue-faithful solver (``kueue.choose_level``, ``kueue.descend``, ``core.greedy``)
and the hierarchical solver's Kueue fill ask only through this protocol.

A policy may also place preferred requests its own way (``Spread``: Kueue's balanced placement);
it reads the request through ``SpreadRequest``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

import numpy as np

from toposched.engine.core.counts import LevelCounts
from toposched.snapshot import BoolArray
from toposched.topology import IntArray, TopologyTree


class Strategy(Protocol):
    """One greedy domain ordering (BestFit, LeastFreeCapacity)."""

    @property
    def descending(self) -> bool:
        """Domains with more free slices come first (else fewer); ties go to the tighter domain
        (fewer pods), then to the domain path."""
        ...

    def level_domain(self, capacity: IntArray, fits: BoolArray, needed: int) -> int | None:
        """Position (in search order) of the one domain that takes the whole request, or None;
        ``capacity``: units each domain holds, ``fits``: it holds them all (leader included)."""
        ...

    def last_domains(self, units: IntArray, lengths: IntArray, first: IntArray, needed: IntArray) -> IntArray:
        """Which domain takes the last units of each of many fills at once. ``units`` holds the
        lists in fill order one after another (``lengths`` each); each list may choose from its
        global position ``first`` on, among domains holding at least its ``needed`` units.
        Returns each list's chosen global position: its ``first`` keeps the order, and so does a
        list where no domain holds ``needed``."""
        ...


class SpreadRequest(Protocol):
    """What a policy's own placement of a preferred request reads of a Kueue request."""

    @property
    def level(self) -> int: ...
    @property
    def count(self) -> int: ...
    @property
    def slice_size(self) -> int: ...
    @property
    def slice_level(self) -> int: ...
    @property
    def leader_count(self) -> int: ...
    @property
    def strategy(self) -> Strategy:
        """The greedy ordering the policy falls back to."""
        ...


# A preferred request placed the policy's way: (tree, phase-1 counts per level, request) -> the
# level and the domains (their shares written into the counts), or None when it does not apply
# (the counts untouched; the greedy ordering places the request then).
Spread = Callable[[TopologyTree, list[LevelCounts], SpreadRequest], tuple[int, IntArray] | None]


def search_order(strategy: Strategy, counts: LevelCounts, index: IntArray) -> IntArray:
    """``index`` in the order domains are tried at the requested level: leader-capable first,
    then slices with the leader (``descending`` or ascending), then pods with the leader
    ascending, then the domain path."""
    loc = counts.loc(index)
    slices = counts.slices_with_leader[loc]
    descending = strategy.descending
    order = np.lexsort(
        (index, counts.pods_with_leader[loc], -slices if descending else slices, -counts.lead[loc])
    )
    return index[order]


def descent_order(strategy: Strategy, counts: LevelCounts, index: IntArray) -> IntArray:
    """``index`` in the order children receive their parent's pods: slices (``descending`` or
    ascending), then pods ascending, then the path. Below the slice level every slice count is
    0, so children with the fewest free pods come first there whatever the ordering."""
    loc = counts.loc(index)
    slices = counts.slices[loc]
    order = np.lexsort((index, counts.pods[loc], -slices if strategy.descending else slices))
    return index[order]


def last_domain(strategy: Strategy, units: IntArray, needed: int, allowed: BoolArray | None = None) -> int:
    """Position, among domains in fill order, of the domain that takes the last ``needed`` units
    (0 keeps the order); ``allowed`` limits the choice. One list of ``last_domains``."""
    if len(units) == 0:
        return 0
    if allowed is not None:
        units = np.where(allowed, units, needed - 1)  # below ``needed``: never chosen
    one = np.ones(1, dtype=np.int64)
    chosen = strategy.last_domains(units, one * len(units), one * 0, one * needed)
    return int(chosen[0])


def level_miss(strategy: Strategy, counts: LevelCounts, order: IntArray) -> tuple[int, int]:
    """(domain, units that fit there) a required request reports when no domain of its level
    holds it, as Kueue reports it: the most free domain, which is the first in a descending
    order (with its slices) and the last in an ascending one (with its pods)."""
    if strategy.descending:
        first = int(order[0])
        return first, int(counts.slices[first - counts.offset])
    last = int(order[-1])
    return last, int(counts.pods[last - counts.offset])
