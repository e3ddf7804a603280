"""Domain paths kept as integer codes.

A 100k-node tree would hold 100k leaf paths as tuples of strings, and a dict per level to find
them again. Instead each level keeps its distinct label values once, sorted, and each domain the
index of its own value plus its parent: paths are decoded (for an index array at once) by
walking up the parents, and found again by binary searches over the codes.
"""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass

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
