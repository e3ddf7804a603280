"""The bookings of ``MemoryStore``: admissions and reassignments checked against capacity, a run
of the loop's decisions written all or nothing, and the reservations read back."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence

from toposched.model import EMPTY, ConflictError, Node, Resources
from toposched.store import rules
from toposched.store.memory_records import MemoryRecords, kept
from toposched.store.records import Admission, Decision, EventRecord, Json, WorkloadRecord, WorkloadState


class MemoryBookings(MemoryRecords):
    """The booking methods of the ``Store`` protocol, over ``MemoryStore``'s state and lock."""

    _nodes: dict[str, Node]

    def write_decisions(self, decisions: Sequence[Decision]) -> dict[int, ConflictError]:
        """Write a run of the loop's decisions in order, all or nothing (see ``Store``)."""
        refused: dict[int, ConflictError] = {}
        with self._changing():
            # Bookings and totals are immutable values (and few: only holding workloads have
            # any): shallow copies restore them. Records are restored from ``_before``.
            saved = (dict(self._reservations), dict(self._booked), len(self._events), self._last_seq)
            self._before = {}
            try:
                for decision in decisions:
                    if isinstance(decision, Admission):
                        try:
                            self.admit(
                                decision.workload, decision.placement, decision.reservations, decision.event
                            )
                        except ConflictError as exc:
                            refused[decision.workload] = exc
                        continue
                    record = self._workloads.get(decision.workload)
                    if record is None or record.state is not WorkloadState.PENDING:
                        continue  # cancelled meanwhile (or unknown): nothing to explain
                    self._write(dataclasses.replace(record, explanation=kept(decision.explanation)))
                    if decision.event is not None:
                        self._log(self._event(decision.event, decision.workload))
            except BaseException:
                before, self._before = self._before, None
                for workload, record in before.items():
                    if record is None:
                        self._drop(workload)
                    else:
                        self._put(record)
                self._reservations, self._booked = saved[0], saved[1]
                del self._events[saved[2] :]
                self._last_seq = saved[3]
                raise
            finally:
                self._before = None
        return refused

    def admit(
        self,
        workload_id: int,
        placement: Json,
        reservations: Mapping[str, Resources],
        event: EventRecord,
    ) -> WorkloadRecord:
        """Pending -> admitted with placement, reservations and an event, all or nothing."""
        return self._book(workload_id, placement, reservations, event, admitting=True)

    def reassign(
        self,
        workload_id: int,
        placement: Json,
        reservations: Mapping[str, Resources],
        event: EventRecord,
    ) -> WorkloadRecord:
        """Swap the placement and reservations of a workload that holds capacity, all or nothing."""
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
        """As ``SqliteStore._book``: admission changes the state and clears the explanation; a
        reassignment keeps the state and replaces the workload's own reservations."""
        with self._changing():
            record = self._get(workload_id)
            if admitting:
                rules.check_admit(record)
            else:
                rules.check_reassign(record)
            adding = rules.bookings(reservations)
            own = {} if admitting else self._reservations.get(workload_id, {})
            booked = {n: self._booked.get(n, EMPTY) - own.get(n, EMPTY) for n in adding}
            allocatable = {n: (self._nodes[n].allocatable if n in self._nodes else None) for n in adding}
            rules.check_capacity(
                allocatable,
                booked,
                adding,
                workload=workload_id,
                action="admitted" if admitting else "reassigned",
            )
            if admitting:
                updated = dataclasses.replace(
                    record, state=WorkloadState.ADMITTED, placement=kept(placement), explanation=None
                )
            else:
                updated = dataclasses.replace(record, placement=kept(placement))
            entry = self._event(event, workload_id)
            self._free(workload_id)
            self._reserve(workload_id, adding)
            self._log(entry)
            return self._write(updated)

    def reservations(self, workload_id: int) -> dict[str, Resources]:
        """What one workload has booked, per node."""
        with self._lock:
            self._get(workload_id)
            return dict(sorted(self._reservations.get(workload_id, {}).items()))

    def reservations_by_workload(self) -> dict[int, dict[str, Resources]]:
        """Every workload's reservations per node, in one read."""
        with self._lock:
            return {w: dict(sorted(r.items())) for w, r in sorted(self._reservations.items()) if r}

    def reserved_by_node(self) -> dict[str, Resources]:
        """Booked capacity per node, summed over every workload holding capacity."""
        with self._lock:
            return dict(sorted(self._booked.items()))
