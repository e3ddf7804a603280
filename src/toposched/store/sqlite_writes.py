"""Grouped writes of ``SqliteStore``: request-path writes (submissions, releases) that arrive
while another batch commits are stored together by the next commit, in one transaction and one
fsync (``batching.GroupCommit``); a batch that fails is retried one write at a time."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from typing import TypeVar, cast

from toposched.store.batching import GroupCommit

R = TypeVar("R")
Write = tuple[str, Callable[[sqlite3.Connection], object]]  # what it does (for errors), and how


class SqliteWrites:
    """The group commit shared by ``SqliteStore``'s mixins (its ``__init__`` makes ``_writes``
    over ``_write_batch``)."""

    _tx: Callable[..., AbstractContextManager[sqlite3.Connection]]
    _writes: GroupCommit[Write, object]

    def _grouped(self, action: str, op: Callable[[sqlite3.Connection], R]) -> R:
        """``op`` in a write transaction shared with the other grouped writes waiting meanwhile.
        A batch that fails is retried one write at a time, so each caller gets its own outcome."""
        return cast(R, self._writes((action, op)))

    def _write_batch(self, batch: Sequence[Write]) -> list[object]:
        action = batch[0][0] if len(batch) == 1 else f"storing {len(batch)} changes"
        with self._tx(action, write=True) as db:
            return [op(db) for _, op in batch]
