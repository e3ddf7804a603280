"""What the engine derives from trees and snapshots and keeps for the next placement.

A placement session owns one ``EngineCaches`` (no module of the engine keeps any state of its
own): per snapshot, what placements made from its capacity (phase-1 counts, the node space with
its per-domain sums); per tree, what depends on the tree only (row layouts, label values,
allocatable maps); and small memos of pure functions of a few values. Entries go with their
snapshot or tree (weak keys) or, for memos, when too many are kept.

A session is used by one thread at a time (its caller's), so nothing here is locked.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar, cast
from weakref import WeakKeyDictionary

from toposched.snapshot import Snapshot
from toposched.topology import TopologyTree

T = TypeVar("T")

_MEMOS = 1024  # memo entries kept: a session sees few distinct pod kinds and request maps


@dataclass(frozen=True, slots=True)
class Slot(Generic[T]):
    """A kind of value kept per snapshot or per tree (named uniquely); its type parameter is
    the value's type."""

    name: str


class EngineCaches:
    """Values kept per snapshot, per tree, and memos, for one session."""

    def __init__(self) -> None:
        self._snapshots: WeakKeyDictionary[Snapshot, dict[Slot[Any], Any]] = WeakKeyDictionary()
        self._trees: WeakKeyDictionary[TopologyTree, dict[Hashable, Any]] = WeakKeyDictionary()
        self._memos: dict[Hashable, Any] = {}

    def per_snapshot(self, snapshot: Snapshot, slot: Slot[T], make: Callable[[], T]) -> T:
        """The value of ``slot`` kept for ``snapshot``, made by ``make`` the first time."""
        kept = self._snapshots.get(snapshot)
        if kept is None:
            kept = self._snapshots[snapshot] = {}
        if slot not in kept:
            kept[slot] = make()
        return cast(T, kept[slot])

    def per_tree(self, tree: TopologyTree, slot: Slot[T], key: Hashable, make: Callable[[], T]) -> T:
        """The value of ``slot`` for ``key`` kept for ``tree``, made by ``make`` the first time."""
        kept = self._trees.get(tree)
        if kept is None:
            kept = self._trees[tree] = {}
        entry = (slot, key)
        if entry not in kept:
            kept[entry] = make()
        return cast(T, kept[entry])

    def memo(self, slot: Slot[T], key: Hashable, make: Callable[[], T]) -> T:
        """``make()`` for ``key``, made once while kept (a pure function of ``key``)."""
        entry = (slot, key)
        if entry not in self._memos:
            if len(self._memos) >= _MEMOS:
                self._memos.clear()
            self._memos[entry] = make()
        return cast(T, self._memos[entry])
