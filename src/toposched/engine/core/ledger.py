"""The one capacity ledger of a placement: free resources per node row, every charge journaled.

Both solvers charge capacity here and nowhere else: the Kueue-faithful solver when a request
of the gang is placed (a later request sees what an earlier one took), the hierarchical solver
for running pods and for every pod it tries (a failed attempt is undone to its mark). The
snapshot never changes during a placement; a placed gang is committed between cycles with
``Snapshot.add_usage(key, usage_of(...))``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy as np

from toposched.engine.core.rowwise import put_rows, take_rows
from toposched.model import Resources
from toposched.snapshot import per_slot_requests
from toposched.topology import IntArray

_ASKED = 64  # vectors whose asked columns are kept


class Ledger:
    """Free amounts per row (node) and column (resource), with a mark / undo journal.

    ``owned`` False: ``free`` belongs to someone else (a snapshot) and is copied before the
    first charge, so a placement that charges nothing copies nothing; after a ``reset`` into the
    matrix the ledger owned before when it has ``free``'s shape (a big fresh one costs page
    faults to fill)."""

    def __init__(self, free: IntArray, columns: Mapping[str, int], *, owned: bool = False) -> None:
        self.free = free
        self.columns = dict(columns)
        self._owned = owned
        self._scratch: IntArray | None = None
        self._journal: list[tuple[IntArray, IntArray, bool]] = []
        self._vectors: dict[Resources, IntArray] = {}  # ``vector``'s answers for the current columns
        # Per read-only vector (``vector``'s, by id; kept alive here): its asked columns and amounts.
        self._asked: dict[int, tuple[IntArray, list[tuple[int, int]]]] = {}
        self._watchers: list[Callable[[IntArray], None]] = []

    def watch(self, changed: Callable[[IntArray], None]) -> None:
        """Call ``changed`` with the rows of every later charge and undo, so that what is
        derived from the free amounts (per-domain sums) follows them."""
        self._watchers.append(changed)

    def reset(self, free: IntArray, columns: Mapping[str, int]) -> None:
        """Start again from ``free`` (someone else's, copied before the next charge), the
        journal empty. Watchers are not told: whoever resets drops what it derived."""
        if self._owned:
            self._scratch = self.free
        self.free = free
        self.columns = dict(columns)
        self._owned = False
        self._journal.clear()
        self._vectors.clear()
        self._asked.clear()

    def vector(self, requests: Resources) -> IntArray:
        """One pod's charge (``pods`` slot included) per column. A resource no node has gets a
        column of zeros, so nothing fits a pod that asks for it. Read-only (shared)."""
        known = self._vectors.get(requests)
        if known is not None:
            return known
        charged = per_slot_requests(requests)
        missing = [resource for resource in charged if resource not in self.columns]
        if missing:
            for resource in missing:
                self.columns[resource] = len(self.columns)
            zeros = np.zeros((self.free.shape[0], len(missing)), dtype=np.int64)
            self.free = np.concatenate([self.free, zeros], axis=1)
            self._owned = True
            self._vectors.clear()  # shorter than the columns now
        vec = np.zeros(len(self.columns), dtype=np.int64)
        for resource, amount in charged.items():
            vec[self.columns[resource]] = amount
        vec.setflags(write=False)
        self._vectors[requests] = vec
        return vec

    def copies(self, rows: IntArray | slice, vec: IntArray) -> IntArray:
        """Per row of ``rows``, how many more pods charging ``vec`` (from ``vector``, which
        always asks the pods slot) fit: the least over the asked columns of free // asked,
        negative on an over-committed row."""
        found = self._asked.get(id(vec))
        if found is None or found[0] is not vec:
            asked = np.flatnonzero(vec)
            found = (vec, list(zip(asked.tolist(), vec[asked].tolist(), strict=True)))
            if not vec.flags.writeable:  # ``vector``'s: it never changes
                if len(self._asked) >= _ASKED:
                    self._asked.clear()
                self._asked[id(vec)] = found
        free = take_rows(self.free, rows)
        copies: IntArray | None = None
        # Column by column: dividing by one number is much faster than by a row of them (and
        # a slot asked once needs no division).
        for column, amount in found[1]:
            fit = free[:, column] if amount == 1 else free[:, column] // amount
            copies = fit.copy() if copies is None else np.minimum(copies, fit, out=copies)
        assert copies is not None  # ``vector`` always asks the pods slot
        return copies

    def column(self, resource: str) -> IntArray:
        """Free amounts of one resource per row (zeros for a resource no node has)."""
        col = self.columns.get(resource)
        return np.zeros(self.free.shape[0], dtype=np.int64) if col is None else self.free[:, col]

    def charge(self, rows: IntArray, pods: IntArray, vec: IntArray, *, distinct: bool = False) -> None:
        """Take ``pods[i]`` pods of ``vec`` (from ``vector``) from row ``rows[i]``
        (``distinct``: the caller knows no row repeats). The journal and the watchers keep
        ``rows`` itself, not a copy: callers must not change it afterwards."""
        if len(rows) == 0:
            return
        if not self._owned:
            if self._scratch is not None and self._scratch.shape == self.free.shape:
                np.copyto(self._scratch, self.free)
                self.free = self._scratch
            else:
                self.free = self.free.copy()
            self._owned = True
        amounts = pods[:, None] * vec[None, :]
        _apply(self.free, rows, amounts, np.subtract, distinct)
        self._journal.append((rows, amounts, distinct))
        for changed in self._watchers:
            changed(rows)

    def mark(self) -> int:
        """A checkpoint: the journal length."""
        return len(self._journal)

    def undo(self, mark: int) -> None:
        """Give back every charge made after ``mark``."""
        given = self._journal[mark:]
        del self._journal[mark:]
        if len(given) > 1 and len({amounts.shape[1] for _, amounts, _ in given}) == 1:
            # All at once (the sum is the same in any order): what a placement's close does.
            rows = np.concatenate([r for r, _, _ in given])
            given = [(rows, np.concatenate([a for _, a, _ in given]), False)]
        for rows, amounts, distinct in reversed(given):
            _apply(self.free, rows, amounts, np.add, distinct)
            for changed in self._watchers:
                changed(rows)


def _apply(free: IntArray, rows: IntArray, amounts: IntArray, op: np.ufunc, distinct: bool) -> None:
    """``op`` (add or subtract) ``amounts[i]`` into row ``rows[i]`` (an amount older than a
    column added since is shorter and leaves that column alone). Rows may repeat unless
    ``distinct``. ``op.at`` is the readable way; the others give the same: one row (the
    hierarchical solver's usual charge) or distinct rows need no unbuffered ``at``, and a
    one-dimensional ``at`` is many times faster than a two-dimensional one (``bench/rowwise.py``)."""
    width = amounts.shape[1]
    if len(rows) == 1:
        row = free[int(rows[0]), :width]
        op(row, amounts[0], out=row)
    elif distinct and width == free.shape[1]:
        changed = take_rows(free, rows)
        op(changed, amounts, out=changed)
        put_rows(free, rows, changed)
    elif distinct:
        free[rows, :width] = op(free[rows, :width], amounts)
    elif free.flags.c_contiguous:
        index = rows[:, None] * free.shape[1] + np.arange(width, dtype=np.int64)
        op.at(free.reshape(-1), index.ravel(), amounts.ravel())
    else:
        op.at(free[:, :width], rows, amounts)
