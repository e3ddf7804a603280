"""The bookings of ``SqliteStore`` (the ``reservations`` table): admissions and reassignments
checked against capacity inside the writing transaction, a run of the loop's decisions in one
transaction, and the reservations read back."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager

from toposched.model import ConflictError, Resources
from toposched.store import rules
from toposched.store.codecs import dumps
from toposched.store.records import Admission, Decision, EventRecord, Json, WorkloadRecord, WorkloadState
from toposched.store.sqlite_rows import (
    allocatable_of,
    booked_by_node,
    booked_on,
    insert_event,
    read_reservation,
    read_workload,
    reservation_text,
    stamp,
)


class SqliteBookings:
    """The booking methods of the ``Store`` protocol, over ``SqliteStore``'s transactions."""

    _tx: Callable[..., AbstractContextManager[sqlite3.Connection]]

    def write_decisions(self, decisions: Sequence[Decision]) -> dict[int, ConflictError]:
        """Write a run of the loop's decisions in order, in one transaction (see ``Store``).

        One write (one fsync) for a run of admissions and explanations instead of one per
        workload: the loop's cycle costs what its placements cost, and the write lock is held
        once, briefly, so submissions get it between runs."""
        if not decisions:
            return {}
        pending = str(WorkloadState.PENDING)
        refused: dict[int, ConflictError] = {}
        with self._tx("storing the scheduling decisions", write=True) as db:
            for decision in decisions:
                if isinstance(decision, Admission):
                    try:
                        self._book_in(db, *_booking(decision), admitting=True)
                    except ConflictError as exc:
                        refused[decision.workload] = exc
                    continue
                text = None if decision.explanation is None else dumps(decision.explanation)
                cursor = db.execute(
                    "UPDATE workloads SET explanation = ? WHERE id = ? AND state = ?",
                    (text, decision.workload, pending),
                )
                if cursor.rowcount and decision.event is not None:  # else cancelled meanwhile
                    insert_event(db, decision.event, decision.workload)
        return refused

    def admit(
        self,
        workload_id: int,
        placement: Json,
        reservations: Mapping[str, Resources],
        event: EventRecord,
    ) -> WorkloadRecord:
        """Pending -> admitted with placement, reservations and an event, in one transaction."""
        return self._book(workload_id, placement, reservations, event, admitting=True)

    def reassign(
        self,
        workload_id: int,
        placement: Json,
        reservations: Mapping[str, Resources],
        event: EventRecord,
    ) -> WorkloadRecord:
        """Swap the placement and reservations of a workload that holds capacity, in one transaction."""
        return self._book(workload_id, placement, reservations, event, admitting=False)

    def _book(
        self,
        workload_id: int,
        placement: Json,
        reservations: Mapping[str, Resources],
        event: EventRecord,
        *,
        admitting: bool,
    ) -> WorkloadRecord:
        """Write a placement and its reservations, refusing over-commit inside the transaction.
        Admitting: pending -> admitted, explanation cleared. Reassigning: the state stays and the
        workload's own old reservations are replaced (so they do not count against the new ones)."""
        action = "admitting a workload" if admitting else "reassigning a workload"
        with self._tx(action, write=True) as db:
            self._book_in(db, workload_id, placement, reservations, event, admitting=admitting)
            return read_workload(db, workload_id)

    def _book_in(
        self,
        db: sqlite3.Connection,
        workload_id: int,
        placement: Json,
        reservations: Mapping[str, Resources],
        event: EventRecord,
        *,
        admitting: bool,
    ) -> None:
        """``_book`` inside the caller's write transaction; checks everything before it writes, so
        a refusal (ConflictError) leaves the transaction as it was."""
        adding = rules.bookings(reservations)
        placement_text = None if placement is None else dumps(placement)
        record = read_workload(db, workload_id)
        if admitting:
            rules.check_admit(record)
        else:
            rules.check_reassign(record)
        allocatable = allocatable_of(db, adding)
        booked = booked_on(db, adding, exclude=None if admitting else workload_id)
        rules.check_capacity(
            allocatable,
            booked,
            adding,
            workload=workload_id,
            action="admitted" if admitting else "reassigned",
        )
        generation = stamp(db, "bookings")
        if admitting:
            db.execute(
                "UPDATE workloads SET state = ?, placement = ?, explanation = NULL, generation = ? WHERE id = ?",
                (str(WorkloadState.ADMITTED), placement_text, generation, workload_id),
            )
        else:
            db.execute(
                "UPDATE workloads SET placement = ?, generation = ? WHERE id = ?",
                (placement_text, generation, workload_id),
            )
            db.execute("DELETE FROM reservations WHERE workload = ?", (workload_id,))
        db.executemany(
            "INSERT INTO reservations (workload, node, resources) VALUES (?, ?, ?)",
            [(workload_id, node, reservation_text(r)) for node, r in sorted(adding.items())],
        )
        insert_event(db, event, workload_id)

    def reservations(self, workload_id: int) -> dict[str, Resources]:
        """What one workload has booked, per node."""
        with self._tx("reading reservations") as db:
            read_workload(db, workload_id)
            rows = db.execute(
                "SELECT node, resources FROM reservations WHERE workload = ? ORDER BY node", (workload_id,)
            ).fetchall()
        return {node: read_reservation(text) for node, text in rows}

    def reservations_by_workload(self) -> dict[int, dict[str, Resources]]:
        """Every workload's reservations per node, in one read."""
        out: dict[int, dict[str, Resources]] = {}
        with self._tx("reading reservations") as db:
            rows = db.execute("SELECT workload, node, resources FROM reservations ORDER BY workload, node")
            for workload, node, text in rows:
                out.setdefault(workload, {})[node] = read_reservation(text)
        return out

    def reserved_by_node(self) -> dict[str, Resources]:
        """Booked capacity per node, summed over every workload holding capacity."""
        with self._tx("reading reservations") as db:
            return dict(sorted(booked_by_node(db).items()))


def _booking(admission: Admission) -> tuple[int, Json, Mapping[str, Resources], EventRecord]:
    return admission.workload, admission.placement, admission.reservations, admission.event
