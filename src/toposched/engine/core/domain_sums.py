"""Per-domain sums of a per-row quantity over one topology view, kept current as the ledger charges.

KAI's bin-pack ordering compares, for every domain of every level, the free amount of each
requested resource and how many whole pods fit. Summing those over every row for each
constrained group cost a pass over the whole cluster per group; here each quantity is summed
once per placement, and after a charge or an undo only the changed rows are read again and
their difference is added along their ancestor path. What callers derive from the sums (fits,
sorted domain orders) is kept with them (``DomainSums.derived``) while they stay unchanged, and
again after a rollback to the checkpoint: the next placement on the same snapshot reuses it.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from itertools import count
from typing import TYPE_CHECKING, TypeVar, cast

import numpy as np

from toposched.topology import IntArray

if TYPE_CHECKING:
    from toposched.engine.core.space import TopoView

# The quantity of some rows (all of them for ``slice(None)``) as a new array, read from the ledger.
RowValues = Callable[[IntArray | slice], IntArray]
_PENDING = 64  # changes kept as they came before they are merged into one set of rows
_DERIVED = 32  # derived values kept before those of other states are dropped
Derived = TypeVar("Derived")


class DomainSums:
    """One per-row quantity (``per_row``: a value or a row of values) and its sums per domain, for the root and the levels
    asked for so far (the deeper levels of a big topology are asked for rarely), kept in one
    array (root, then level 0, 1, ...) so that callers compute on every level at once."""

    def __init__(self, view: TopoView, values: RowValues) -> None:
        self._view = view
        self._values = values
        self._per_row = values(slice(None))
        members = (
            self._per_row[: view.bounds[0][-1]] if view.bounds is not None else self._per_row[view.member]
        )
        sizes = [1, *(view.tree.count(level) for level in range(view.tree.depth))]
        self._starts: list[int] = np.cumsum([0, *sizes]).tolist()  # level k starts at [k + 1]
        self._flat: IntArray = members.sum(axis=0, keepdims=True).astype(np.int64)
        # Per row, its flat index per level summed so far (``_flat_codes``; made on first need).
        self._summed = 0
        self._codes: IntArray | None = None
        self._changed: list[IntArray] = []  # rows charged or given back since the sums were read
        # Since the checkpoint, each move of the sums: its rows, their values before, the flat
        # indices and amounts added, and the root's change (None: no rollback to rewind to).
        self._moves: list[tuple[IntArray, IntArray, IntArray, IntArray, IntArray]] | None = None
        # Per column, never below its largest value.
        self._most: IntArray = self._per_row.max(axis=0, initial=0)
        # The sums' state: a new number whenever they change; the checkpoint's again after a
        # rollback to it (which restores them exactly).
        self._states = count(1)  # a fresh number for every distinct state of these sums
        self._state = next(self._states)
        self._checkpoint_state = 0
        self._derived: dict[tuple[int, Hashable], object] = {}

    def exceeds(self, limit: int, column: int = -1) -> bool:
        """Whether some row's value (in ``column`` for rows of values) is above ``limit``; a
        bound answers unless it is above too."""
        self._refresh()
        at = () if self._per_row.ndim == 1 else (column,)
        if self._most[at] > limit:
            self._most = self._per_row.max(axis=0, initial=0)
        return bool(self._most[at] > limit)

    @property
    def per_row(self) -> IntArray:
        self._refresh()
        return self._per_row

    def derived(self, key: Hashable, make: Callable[[], Derived]) -> Derived:
        """``make()`` (a value computed from these sums, named by ``key``), made once for the
        sums as they are now: kept while they do not change and for the state ``checkpoint``
        saw, so a placement on an unchanged snapshot finds what the one before it made."""
        self._refresh()
        found = self._derived.get((self._state, key))
        if found is None:
            if len(self._derived) >= _DERIVED:
                keep = (self._state, self._checkpoint_state)
                self._derived = {k: v for k, v in self._derived.items() if k[0] in keep}
            found = self._derived[(self._state, key)] = make()
        return cast(Derived, found)

    def current(self, deepest: int) -> bool:
        """Whether the sums down to level ``deepest`` are read without reading any row: no row
        changed since they were last read, and they reach that level."""
        return not self._changed and self._starts[deepest + 2] <= len(self._flat)

    def start(self, level: int) -> int:
        """Where ``level`` (the root is -1) starts in ``flat``."""
        return self._starts[level + 1]

    def flat(self, deepest: int) -> IntArray:
        """Sums per domain of the root (one domain) and of levels 0..``deepest``, in one array
        (``start`` gives each level's place). Kept current: copy what must not change."""
        self._refresh()
        end = self._starts[deepest + 2]
        if end > len(self._flat):
            # Summing the rows into any level is one pass, and a level above costs little more:
            # down to the level above the leaves at once, so that groups asking for different
            # levels share the pass (the leaves, often single nodes, only when asked for).
            lowest = max(deepest, self._view.tree.depth - 2)
            # Column by column (Fortran order): callers compare a resource over every domain.
            flat = np.concatenate([self._flat[:1], *sum_levels(self._view, self._per_row, lowest)])
            self._flat = np.asfortranarray(flat)
            self._moves = None  # the new levels hold the moves already: read the rows again instead
            self._summed, self._codes = lowest + 1, None
            self._state = next(self._states)
        return self._flat[:end]

    def down_to(self, deepest: int) -> list[IntArray]:
        """``flat`` cut into one array per level: the root, then levels 0..``deepest``."""
        flat = self.flat(deepest)
        return [flat[self._starts[k] : self._starts[k + 1]] for k in range(deepest + 2)]

    def changed(self, rows: IntArray) -> None:
        """The free amounts of ``rows`` changed: read them again before the sums are next read
        (a placement's last charges are never read)."""
        if not len(rows):
            return
        self._changed.append(rows)
        if len(self._changed) > _PENDING:  # a sum nobody reads for long: keep its rows bounded
            self._changed = [np.unique(np.concatenate(self._changed))]

    def checkpoint(self) -> None:
        """The ledger is at a point it will be rolled back to (``rolled_back``)."""
        self._refresh()
        self._moves = []
        self._checkpoint_state = self._state

    def rolled_back(self) -> None:
        """The ledger is back at the checkpoint: take back the moves since (cheaper than reading
        the changed rows again); every change since then cancels out."""
        if self._moves is None:
            return  # the changed rows are read again when the sums are next read
        for rows, before, codes, amounts, root in reversed(self._moves):
            self._per_row[rows] = before
            self._most = np.maximum(self._most, before.max(axis=0))  # still a bound
            self._flat[0] -= root
            np.subtract.at(self._flat, codes, amounts)
        self._changed.clear()
        self._moves = None
        self._state = self._checkpoint_state

    def _flat_codes(self) -> IntArray:
        """Per row, its index in ``flat`` at each level summed (a placement whose sums never
        move after the first read never needs them)."""
        if self._codes is None:
            codes = self._view.codes[: self._summed]
            self._codes = np.zeros((len(self._per_row), 0), dtype=np.int64)
            if codes:
                self._codes = np.stack([c + self._starts[k + 1] for k, c in enumerate(codes)], axis=1)
        return self._codes

    def _refresh(self) -> None:
        """Read the changed rows again and move the sums by the difference."""
        if not self._changed:
            return
        rows = np.unique(np.concatenate(self._changed))
        self._changed.clear()
        fresh = self._values(rows)
        before = self._per_row[rows]
        delta = fresh - before
        if not delta.any():
            return
        self._state = next(self._states)
        self._per_row[rows] = fresh
        self._most = np.maximum(self._most, fresh.max(axis=0))
        inside = self._view.member[rows]
        moved, delta = rows[inside], delta[inside]
        root = delta.sum(axis=0)
        self._flat[0] += root
        flat_codes = self._flat_codes()
        codes = flat_codes[moved].ravel()
        amounts = np.repeat(delta, flat_codes.shape[1], axis=0)
        np.add.at(self._flat, codes, amounts)
        if self._moves is not None:
            self._moves.append((rows, before, codes, amounts, root))


def sum_levels(view: TopoView, per_row: IntArray, deepest: int) -> list[IntArray]:
    """For levels 0..``deepest``, ``per_row`` summed over each domain's member rows: one pass
    over the rows when the view's domains are row ranges, else ``sum_levels_by_code``."""
    if view.bounds is None:
        return sum_levels_by_code(view, per_row, deepest)
    tree, bounds = view.tree, view.bounds[deepest]
    if bounds[-1] == 0:
        return [
            np.zeros((tree.count(level), *per_row.shape[1:]), dtype=np.int64) for level in range(deepest + 1)
        ]
    sums = [np.add.reduceat(per_row[: bounds[-1]], bounds[:-1])]
    for level in range(deepest - 1, -1, -1):
        sums.insert(0, np.add.reduceat(sums[0], tree.child_start[level]))
    return sums


def sum_levels_by_code(view: TopoView, per_row: IntArray, deepest: int) -> list[IntArray]:
    """The readable twin of ``sum_levels``: every member row added to its domain, level by level."""
    rows = np.flatnonzero(view.member)
    out: list[IntArray] = []
    for level in range(deepest + 1):
        sums = np.zeros((view.tree.count(level), *per_row.shape[1:]), dtype=np.int64)
        np.add.at(sums, view.codes[level][rows], per_row[rows])
        out.append(sums)
    return out
