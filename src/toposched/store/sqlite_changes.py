"""What changed in ``SqliteStore`` since a reader last looked: nodes and bookings by generation.

Each write transaction that changes nodes (or a workload's bookings) takes the next generation of
that table (``sqlite_rows.stamp``) and writes it on every row it changes; triggers (migration 6)
stamp the rows another program changes, and a deleted node leaves its name with the generation of
its deletion in ``removed_nodes``. A reader that remembers the generation of its last read then
reads only the rows written after it (through an index on ``generation``): a scheduling cycle
costs what changed, not the size of the cluster. Deletion records are bounded: past
``MAX_REMOVED`` they are dropped and ``nodes_floor`` moves up, so a reader older than that reads
every node again.

Every function runs inside a transaction its caller opened (``sqlite_connections``).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager
from typing import Any, overload

from toposched.model import Node, Resources
from toposched.store.codecs import workload_from_row
from toposched.store.records import BookingChanges, NodeChanges, WorkloadRecord, WorkloadState
from toposched.store.sqlite_rows import WORKLOAD_COLUMNS, NodeReader, read_reservation

MAX_REMOVED = 4096  # deletion records kept; past it, readers older than the newest read everything
_HOLDING = tuple(str(s) for s in WorkloadState if s.holds_capacity)
_STATE = WORKLOAD_COLUMNS.split(", ").index("state")  # where a row holds it


def _generation(db: sqlite3.Connection, name: str) -> int:
    return int(db.execute("SELECT value FROM generations WHERE name = ?", (name,)).fetchone()[0])


def bound_removed(db: sqlite3.Connection) -> None:
    """After deleting nodes: past ``MAX_REMOVED`` deletion records, drop them all and move the
    floor up to now, so readers older than now read every node again."""
    if db.execute("SELECT COUNT(*) FROM removed_nodes").fetchone()[0] > MAX_REMOVED:
        db.execute("DELETE FROM removed_nodes")
        db.execute(
            "UPDATE generations SET value = (SELECT value FROM generations WHERE name = 'nodes')"
            " WHERE name = 'nodes_floor'"
        )


def node_changes(
    db: sqlite3.Connection, since: int | None, decode: Callable[[str, str], Node]
) -> NodeChanges:
    """The nodes written and deleted after generation ``since`` (see ``Store.node_changes``);
    ``decode`` turns a stored node's text into its value."""
    now, floor = _generation(db, "nodes"), _generation(db, "nodes_floor")
    if since is None or since < floor or since > now:
        rows = db.execute("SELECT name, data FROM nodes ORDER BY name").fetchall()
        return NodeChanges(now, tuple(decode(text, f"node {name!r}") for name, text in rows), (), True)
    # No ORDER BY: it would make SQLite walk every row in that order instead of the generation
    # index; the few rows found are sorted here.
    rows = sorted(db.execute("SELECT name, data FROM nodes WHERE generation > ?", (since,)))
    removed = sorted(
        r[0] for r in db.execute("SELECT name FROM removed_nodes WHERE generation > ?", (since,))
    )
    nodes = tuple(decode(text, f"node {name!r}") for name, text in rows)
    written = {node.name for node in nodes}  # deleted, then written again: stored now
    return NodeChanges(now, nodes, tuple(name for name in removed if name not in written), False)


def booking_changes(db: sqlite3.Connection, since: int | None) -> BookingChanges:
    """The workloads whose bookings changed after generation ``since`` (see
    ``Store.booking_changes``)."""
    now = _generation(db, "bookings")
    marks = ", ".join("?" for _ in _HOLDING)
    full = since is None or since > now
    if full:
        rows = db.execute(
            f"SELECT {WORKLOAD_COLUMNS} FROM workloads WHERE state IN ({marks}) ORDER BY sequence, id",
            _HOLDING,
        ).fetchall()
        booked = db.execute("SELECT workload, node, resources FROM reservations ORDER BY workload, node")
    else:
        rows = db.execute(
            f"SELECT {WORKLOAD_COLUMNS} FROM workloads WHERE generation > ?", (since,)
        ).fetchall()
        booked = db.execute(
            "SELECT workload, node, resources FROM reservations"
            " WHERE workload IN (SELECT id FROM workloads WHERE generation > ?) ORDER BY workload, node",
            (since,),
        )
    reservations: dict[int, dict[str, Resources]] = {}
    for workload, node, text in booked:
        reservations.setdefault(workload, {})[node] = read_reservation(text)
    rows.sort(key=lambda row: (row[1], row[0]))  # arrival order: sequence, id
    holding = [row for row in rows if row[_STATE] in _HOLDING]
    released = {r.id: r.state for r in map(workload_from_row, rows) if not r.state.holds_capacity}
    return BookingChanges(
        now, RowRecords(holding), {row[0]: reservations.get(row[0], {}) for row in holding}, released, full
    )


class RowRecords(Sequence[WorkloadRecord]):
    """Workload rows read as records one at a time, when asked for: a change read after many
    admissions holds their rows (text) only, not every decoded placement at once. Each access
    decodes again; callers walk it once."""

    __slots__ = ("_rows",)

    def __init__(self, rows: list[tuple[Any, ...]]) -> None:
        self._rows = rows

    def __len__(self) -> int:
        return len(self._rows)

    @overload
    def __getitem__(self, index: int) -> WorkloadRecord: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[WorkloadRecord]: ...

    def __getitem__(self, index: int | slice) -> WorkloadRecord | Sequence[WorkloadRecord]:
        if isinstance(index, slice):
            return RowRecords(self._rows[index])
        return workload_from_row(self._rows[index])

    def __iter__(self) -> Iterator[WorkloadRecord]:
        return map(workload_from_row, self._rows)


class SqliteChanges:
    """The change reads of the ``Store`` protocol, over ``SqliteStore``'s transactions."""

    _tx: Callable[..., AbstractContextManager[sqlite3.Connection]]
    _nodes: NodeReader

    def node_changes(self, since: int | None = None) -> NodeChanges:
        """The nodes written or deleted after generation ``since`` (see ``Store``), by this
        store or another process: rows found through the index on their generation."""
        with self._tx("reading node changes") as db:
            return node_changes(db, since, self._nodes.decode)

    def booking_changes(self, since: int | None = None) -> BookingChanges:
        """The workloads whose bookings changed after generation ``since`` (see ``Store``)."""
        with self._tx("reading booking changes") as db:
            return booking_changes(db, since)
