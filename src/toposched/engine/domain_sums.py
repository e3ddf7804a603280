"""Per-domain sums of a per-row quantity over one topology view, kept current as the ledger charges.

KAI's bin-pack ordering compares, for every domain of every level, the free amount of each
requested resource and how many whole pods fit. Summing those over every row for each
constrained group cost a pass over the whole cluster per group; here each quantity is summed
once per placement, and after a charge or an undo only the changed rows are read again and
their difference is added along their ancestor path.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from toposched.topology import IntArray

if TYPE_CHECKING:
    from toposched.engine.space import TopoView

# The quantity of some rows (all of them for ``slice(None)``) as a new array, read from the ledger.
RowValues = Callable[[IntArray | slice], IntArray]


class DomainSums:
    """One per-row quantity (``per_row``) and its sums per domain, for the root and the levels
    asked for so far (the deeper levels of a big topology are asked for rarely)."""

    def __init__(self, view: TopoView, values: RowValues) -> None:
        self._view = view
        self._values = values
        self._per_row = values(slice(None))
        members = (
            self._per_row[: view.bounds[0][-1]] if view.bounds is not None else self._per_row[view.member]
        )
        self._levels = [np.asarray([members.sum()], dtype=np.int64)]
        self._changed: list[IntArray] = []  # rows charged or given back since the sums were read

    @property
    def per_row(self) -> IntArray:
        self._refresh()
        return self._per_row

    def down_to(self, deepest: int) -> list[IntArray]:
        """Sums per domain of the root (one domain) and of levels 0..``deepest``. They are kept
        current: copy what must not change."""
        self._refresh()
        if deepest + 1 >= len(self._levels):
            # Summing the rows into any level is one pass, and a level above costs little more:
            # down to the level above the leaves at once, so that groups asking for different
            # levels share the pass (the leaves, often single nodes, only when asked for).
            lowest = max(deepest, self._view.tree.depth - 2)
            self._levels[1:] = sum_levels(self._view, self._per_row, lowest)
        return self._levels[: deepest + 2]

    def changed(self, rows: IntArray) -> None:
        """The free amounts of ``rows`` changed: read them again before the sums are next read
        (a placement's last charges are never read)."""
        self._changed.append(rows)

    def _refresh(self) -> None:
        """Read the changed rows again and move the sums by the difference."""
        if not self._changed:
            return
        rows = np.unique(np.concatenate(self._changed))
        self._changed.clear()
        fresh = self._values(rows)
        delta = fresh - self._per_row[rows]
        if not delta.any():
            return
        self._per_row[rows] = fresh
        inside = self._view.member[rows]
        rows, delta = rows[inside], delta[inside]
        self._levels[0][0] += delta.sum()
        for level, sums in enumerate(self._levels[1:]):
            np.add.at(sums, self._view.codes[level][rows], delta)


def sum_levels(view: TopoView, per_row: IntArray, deepest: int) -> list[IntArray]:
    """For levels 0..``deepest``, ``per_row`` summed over each domain's member rows: one pass
    over the rows when the view's domains are row ranges, else ``sum_levels_by_code``."""
    if view.bounds is None:
        return sum_levels_by_code(view, per_row, deepest)
    tree, bounds = view.tree, view.bounds[deepest]
    if bounds[-1] == 0:
        return [np.zeros(tree.count(level), dtype=np.int64) for level in range(deepest + 1)]
    sums = [np.add.reduceat(per_row[: bounds[-1]], bounds[:-1])]
    for level in range(deepest - 1, -1, -1):
        sums.insert(0, np.add.reduceat(sums[0], tree.child_start[level]))
    return sums


def sum_levels_by_code(view: TopoView, per_row: IntArray, deepest: int) -> list[IntArray]:
    """The readable twin of ``sum_levels``: every member row added to its domain, level by level."""
    rows = np.flatnonzero(view.member)
    out: list[IntArray] = []
    for level in range(deepest + 1):
        sums = np.zeros(view.tree.count(level), dtype=np.int64)
        np.add.at(sums, view.codes[level][rows], per_row[rows])
        out.append(sums)
    return out
