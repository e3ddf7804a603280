"""The protocol every greedy domain ordering (``toposched.engine.policies``) follows, and the
sort keys they share.

A Kueue-style placement asks an ordering three things: the order to search domains in (at the
requested level), the order to share pods among children (descent), and which domain takes the
last pods (the one that completes the request). The Kueue-faithful solver (``kueue.choose_level``,
``kueue.descend``, ``core.greedy``) and the hierarchical solver's Kueue fill ask only through this protocol.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np

from toposched.engine.core.counts import LevelCounts
from toposched.snapshot import BoolArray
from toposched.topology import IntArray


class Strategy(Protocol):
    """One greedy domain ordering (BestFit, LeastFreeCapacity)."""

    @property
    def name(self) -> str: ...

    @property
    def descending(self) -> bool:
        """Domains with more free slices come first (else fewer); ties go to the tighter domain
        (fewer pods), then to the domain path. Vectorised sorts read this directly."""
        ...

    def search_order(self, counts: LevelCounts, index: IntArray) -> IntArray:
        """``index`` in the order domains are tried at the requested level."""
        ...

    def descent_order(self, counts: LevelCounts, index: IntArray) -> IntArray:
        """``index`` in the order children receive their parent's pods."""
        ...

    def level_domain(self, capacity: IntArray, fits: BoolArray, needed: int) -> int | None:
        """Position (in search order) of the one domain that takes the whole request, or None;
        ``capacity``: units each domain holds, ``fits``: it holds them all (leader included)."""
        ...

    def level_miss(self, counts: LevelCounts, order: IntArray) -> tuple[int, int]:
        """(domain, units that fit there) a required request reports when no domain holds it."""
        ...

    def last_domain(self, units: IntArray, needed: int, allowed: BoolArray | None = None) -> int:
        """Position, among candidates in fill order whose first holds ``needed`` units, of the
        domain that takes them (0 keeps the order); ``allowed`` limits the choice."""
        ...

    def last_domains(self, units: IntArray, lengths: IntArray, first: IntArray, needed: IntArray) -> IntArray:
        """``last_domain`` for many lists at once: ``units`` holds the lists one after another
        (``lengths`` each), ``first`` the global position from which each list may choose (it
        holds the list's ``needed``). Returns each list's chosen global position."""
        ...


def search_sorted(counts: LevelCounts, index: IntArray, descending: bool) -> IntArray:
    """Search order: leader-capable first, then slices with the leader (``descending`` or
    ascending), then pods with the leader ascending, then the domain path."""
    loc = counts.loc(index)
    slices = counts.slcl[loc]
    order = np.lexsort((index, counts.podl[loc], -slices if descending else slices, -counts.lead[loc]))
    return index[order]


def descent_sorted(counts: LevelCounts, index: IntArray, descending: bool) -> IntArray:
    """Descent order: slices (``descending`` or ascending), then pods ascending, then the path.
    Below the slice level every slice count is 0, so children with the fewest free pods come
    first there whatever the ordering."""
    loc = counts.loc(index)
    slices = counts.slc[loc]
    order = np.lexsort((index, counts.pod[loc], -slices if descending else slices))
    return index[order]


class SlicesFirst:
    """The two orders every Kueue ordering shares, by free slices in its ``descending`` sense;
    a policy adds how it picks the level's domain and the last domain."""

    descending: bool

    def search_order(self, counts: LevelCounts, index: IntArray) -> IntArray:
        return search_sorted(counts, index, self.descending)

    def descent_order(self, counts: LevelCounts, index: IntArray) -> IntArray:
        return descent_sorted(counts, index, self.descending)
