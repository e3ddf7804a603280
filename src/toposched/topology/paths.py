"""Label values and domain paths kept as integer codes.

A 100k-node tree would hold 100k leaf paths as tuples of strings, and a dict per level to find
them again. Instead each level keeps its distinct label values once, sorted, and each domain the
index of its own value plus its parent: paths are decoded (for an index array at once) by
walking up the parents, and found again by binary searches over the codes.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import chain, count, islice

import numpy as np
import numpy.typing as npt

IntArray = npt.NDArray[np.int64]
ObjectArray = npt.NDArray[np.object_]


@dataclass(frozen=True, slots=True)
class PathCodes:
    """Per level: the distinct label values (sorted), per domain the index of its value among
    them (``codes``) and the index of its parent domain one level up (-1 at level 0)."""

    values: tuple[ObjectArray, ...]
    codes: tuple[IntArray, ...]
    parent: tuple[IntArray, ...]

    def paths(self, level: int, domains: IntArray, first: int = 0) -> list[tuple[str, ...]]:
        """The values of levels ``first..level`` on the path of each of ``domains``, read a
        level at a time up the parents."""
        columns: list[list[str]] = []
        for lvl in range(level, first - 1, -1):
            columns.append(self.values[lvl][self.codes[lvl][domains]].tolist())
            domains = self.parent[lvl][domains]
        return list(zip(*reversed(columns), strict=True))

    def code(self, level: int, value: object) -> int | None:
        """The index of ``value`` among the values of ``level``, or None when no domain has it."""
        values = self.values[level]
        if not isinstance(value, str):
            return None
        pos = bisect_left(values, value)
        return pos if pos < len(values) and values[pos] == value else None


SAMPLE = 1024  # values looked at to tell mostly distinct values (hostnames) from a few repeated ones


def value_codes(values: Iterable[str]) -> tuple[ObjectArray, IntArray]:
    """The distinct ``values`` in sorted order, and per value its index among them.

    A few repeated values (zones, racks) are numbered through a dict and only the distinct ones
    sorted; mostly distinct values (hostnames) are sorted all at once by numpy, which is quicker
    than filling a dict with them."""
    rest = iter(values)
    head = list(islice(rest, SAMPLE))
    stream: Iterable[str] = chain(head, rest)
    if 2 * len(set(head)) > len(head):
        head.extend(rest)
        stream = head
        if not holds_nul(head):
            _, first, codes = np.unique(np.array(head, dtype=np.str_), return_index=True, return_inverse=True)
            distinct = np.fromiter(map(head.__getitem__, first.tolist()), dtype=object, count=len(first))
            return distinct, codes.astype(np.int64).reshape(len(head))
    seen: dict[str, int] = {}  # value -> position of its first occurrence
    positions = np.fromiter(map(seen.setdefault, stream, count()), dtype=np.int64)
    keys = list(seen)
    order = string_order(keys)
    rank = np.empty(len(positions), dtype=np.int64)  # indexed by first position
    rank[np.fromiter(seen.values(), dtype=np.int64, count=len(keys))[order]] = np.arange(len(keys))
    ordered = np.fromiter(map(keys.__getitem__, order.tolist()), dtype=object, count=len(keys))
    return ordered, rank[positions]


def holds_nul(strings: list[str]) -> bool:
    """numpy's fixed-width strings compare like Python strings except that they drop trailing
    NUL characters: strings holding a NUL are sorted by Python instead."""
    return "\x00" in "".join(strings)


def string_order(strings: list[str]) -> IntArray:
    """The stable order that sorts ``strings`` as Python compares them (by numpy when it can)."""
    if holds_nul(strings):
        return python_string_order(strings)
    return np.argsort(np.array(strings, dtype=np.str_), kind="stable").astype(np.int64)


def python_string_order(strings: list[str]) -> IntArray:
    """``string_order`` by Python's sort (the readable twin)."""
    return np.fromiter(
        sorted(range(len(strings)), key=strings.__getitem__), dtype=np.int64, count=len(strings)
    )


class DecodedPaths:
    """The path tuples of a tree's domains, decoded from its ``codes`` on first use and kept;
    ``leaf_domain``: per member node, its leaf; ``hostname_is_lowest``: the leaf level is the
    hostname, whose assignment entry is the hostname alone."""

    __slots__ = (
        "_codes",
        "_hostname_is_lowest",
        "_hostname_leaf",
        "_leaf_domain",
        "_leaf_values",
        "_node_leaf_path",
        "_paths",
    )

    def __init__(self, codes: PathCodes, leaf_domain: IntArray, hostname_is_lowest: bool) -> None:
        self._codes = codes
        self._leaf_domain = leaf_domain
        self._hostname_is_lowest = hostname_is_lowest
        self._paths: tuple[tuple[tuple[str, ...], ...], ...] | None = None
        self._leaf_values: tuple[tuple[str, ...], ...] | None = None
        self._node_leaf_path: ObjectArray | None = None
        self._hostname_leaf: IntArray | None = None

    def paths(self) -> tuple[tuple[tuple[str, ...], ...], ...]:
        """Per level, the path of each domain."""
        if self._paths is None:
            self._paths = tuple(
                tuple(self._codes.paths(level, np.arange(len(codes), dtype=np.int64)))
                for level, codes in enumerate(self._codes.codes)
            )
        return self._paths

    def leaf_values(self) -> tuple[tuple[str, ...], ...]:
        """Per leaf, its assignment entry: ``(hostname,)`` for hostname topologies, else its path."""
        if self._leaf_values is None:
            leaf = len(self._codes.codes) - 1
            if self._hostname_is_lowest:
                leaves = np.arange(len(self._codes.codes[leaf]), dtype=np.int64)
                self._leaf_values = tuple(self._codes.paths(leaf, leaves, first=leaf))
            else:
                self._leaf_values = self.paths()[leaf]
        return self._leaf_values

    def node_leaf_path(self) -> ObjectArray:
        """Per member node, the path of its leaf."""
        if self._node_leaf_path is None:
            leaves = self.paths()[-1]
            leaf_paths = np.fromiter(leaves, dtype=object, count=len(leaves))
            self._node_leaf_path = leaf_paths[self._leaf_domain]
        return self._node_leaf_path

    def first_leaf_by_hostname(self) -> IntArray:
        """Per hostname (leaf-level value code), its first leaf."""
        if self._hostname_leaf is None:
            self._hostname_leaf = np.unique(self._codes.codes[-1], return_index=True)[1].astype(np.int64)
        return self._hostname_leaf
