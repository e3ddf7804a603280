"""``MemoryStore``: the ``Store`` protocol in memory, for tests and dry runs.

Same rules as the SQLite store (shared through ``toposched.store.rules``); every operation checks
before it changes anything, under one lock, so a refused call leaves no trace. Workload placements
and explanations are kept frozen (``toposched.store.frozen``), so reads hand out the stored records
without copying; workload ids are indexed by state, so listing some states never scans the
finished ones.

``MemoryStore(history=False)`` keeps only what a running scheduler reads: a workload that ends
(finished or cancelled) is forgotten, and events are numbered but not kept. For a caller whose
record lives elsewhere (the controller's is the cluster), so its memory does not grow with every
workload it ever ran.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager

from toposched.model import (
    EMPTY,
    ConflictError,
    Node,
    NotFoundError,
    Quota,
    Resources,
    SchedulingQueue,
    Taint,
    Topology,
)
from toposched.store import rules
from toposched.store.codecs import copy_json
from toposched.store.frozen import frozen_copy
from toposched.store.memory_changes import ChangeLog, MemoryChanges
from toposched.store.memory_pools import MemoryPools
from toposched.store.memory_queues import MemoryQueues
from toposched.store.memory_quotas import MemoryQuotas
from toposched.store.memory_tokens import MemoryTokens
from toposched.store.records import (
    ACTIVE_STATES,
    Admission,
    Decision,
    EventRecord,
    Json,
    PoolRecord,
    QueueEntry,
    TokenRecord,
    WorkloadRecord,
    WorkloadState,
)


class MemoryStore(MemoryQuotas, MemoryQueues, MemoryPools, MemoryTokens, MemoryChanges):
    """Volatile state; everything is lost when the object goes away."""

    def __init__(self, *, history: bool = True) -> None:
        self._history = history
        self._lock = threading.RLock()
        self._nodes: dict[str, Node] = {}
        self._topologies: dict[str, Topology] = {}
        self._pools: dict[str, PoolRecord] = {}
        self._quotas: dict[str, Quota] = {}
        self._scheduling_queues: dict[str, SchedulingQueue] = {}
        self._tokens: dict[str, TokenRecord] = {}
        self._workloads: dict[int, WorkloadRecord] = {}
        self._by_state: dict[WorkloadState, set[int]] = {state: set() for state in WorkloadState}
        # While ``write_decisions`` runs: each workload's record before the run, to roll back.
        self._before: dict[int, WorkloadRecord | None] | None = None
        self._reservations: dict[int, dict[str, Resources]] = {}
        # Reservations summed per node, kept in step with ``_reservations``: a capacity check
        # reads only the nodes it books, never every reservation.
        self._booked: dict[str, Resources] = {}
        self._events: list[EventRecord] = []
        self._last_seq = 0  # of the newest event, kept or not
        self._next_id = 1
        self._next_sequence = 1
        self._version = 0  # moves on with every call that may change what is stored
        # Which nodes, and which workloads' bookings, changed since a generation.
        self._node_log: ChangeLog[str] = ChangeLog()
        self._booking_log: ChangeLog[int] = ChangeLog()

    def version(self) -> int:
        """A number that moves on whenever what is stored may have changed."""
        return self._version

    @contextmanager
    def _changing(self) -> Iterator[None]:
        """The lock, for a call that may change what is stored (``version`` moves on)."""
        with self._lock:
            self._version += 1
            yield

    # -- nodes ---------------------------------------------------------------------------------
    def put_nodes(self, nodes: Iterable[Node], *, replace: bool = False) -> None:
        """Insert or overwrite nodes by name; with ``replace`` also delete every node not listed."""
        batch = {node.name: node for node in nodes}
        with self._changing():
            gone = [name for name in self._nodes if name not in batch] if replace else []
            for name in gone:
                del self._nodes[name]
            self._nodes.update(batch)
            for name in (*gone, *batch):
                self._node_log.touch(name, len(self._nodes))

    def get_nodes(self) -> list[Node]:
        """Every node, sorted by name."""
        with self._lock:
            return [self._nodes[name] for name in sorted(self._nodes)]

    def get_node(self, name: str) -> Node:
        """One node by name."""
        with self._lock:
            if name not in self._nodes:
                raise NotFoundError("node", name)
            return self._nodes[name]

    def update_node(
        self,
        name: str,
        *,
        ready: bool | None = None,
        unschedulable: bool | None = None,
        taints: tuple[Taint, ...] | None = None,
        labels: Mapping[str, str] | None = None,
        allocatable: Resources | None = None,
    ) -> Node:
        """Change the given fields of one node; returns the stored node."""
        with self._changing():
            node = rules.updated_node(self.get_node(name), ready, unschedulable, taints, labels, allocatable)
            self._nodes[name] = node
            self._node_log.touch(name, len(self._nodes))
            return node

    def delete_node(self, name: str) -> None:
        """Forget a node. Its reservations stay with their workloads until released."""
        with self._changing():
            if self._nodes.pop(name, None) is None:
                raise NotFoundError("node", name)
            self._node_log.touch(name, len(self._nodes))

    # -- topologies ----------------------------------------------------------------------------
    def put_topology(self, topology: Topology) -> None:
        """Insert or overwrite a topology by name."""
        with self._changing():
            self._topologies[topology.name] = topology

    def get_topology(self, name: str) -> Topology:
        """One topology by name."""
        with self._lock:
            if name not in self._topologies:
                raise NotFoundError(
                    "topology", name, f"known topologies: {rules.known_names(self._topologies)}"
                )
            return self._topologies[name]

    def list_topologies(self) -> list[Topology]:
        """Every topology, sorted by name."""
        with self._lock:
            return [self._topologies[name] for name in sorted(self._topologies)]

    def delete_topology(self, name: str) -> None:
        """Delete a topology; ConflictError while a live workload or a pool references it."""
        with self._changing():
            self.get_topology(name)
            users = [w.id for w in self._live() if w.topology == name]
            pools = sorted(p.name for p in self._pools.values() if p.topology == name)
            rules.check_topology_unused(name, users, pools)
            del self._topologies[name]

    # -- workloads -----------------------------------------------------------------------------
    def submit_workload(
        self, record: WorkloadRecord, event: EventRecord | None = None, quota: Quota | None = None
    ) -> WorkloadRecord:
        """Store a new pending workload (and ``event`` for it); assigns ``id`` and ``sequence``.
        ``quota`` (or the owner's own) is checked first."""
        with self._changing():
            quota = self._quotas.get(record.owner, quota)
            if quota is not None:
                rules.check_quota(
                    record.owner, self.pending_usage(record.owner), rules.usage_of(record), quota
                )
            entry = self._event(event, self._next_id) if event is not None else None
            stored = dataclasses.replace(
                record,
                id=self._next_id,
                sequence=self._next_sequence,
                state=WorkloadState.PENDING,
                placement=None,
                explanation=None,
            )
            self._next_id += 1
            self._next_sequence += 1
            self._put(stored)
            if entry is not None:
                self._log(entry)
            return stored

    def get_workload(self, workload_id: int) -> WorkloadRecord:
        """One workload by id."""
        with self._lock:
            return self._get(workload_id)

    def list_workloads(
        self, owner: str | None = None, states: Collection[WorkloadState] | None = None
    ) -> list[WorkloadRecord]:
        """Workloads in arrival order, optionally only one owner's and only some states."""
        with self._lock:
            found = [w for w in self._in_states(states) if owner is None or w.owner == owner]
            return sorted(found, key=_arrival)

    def page_workloads(
        self,
        *,
        owner: str | None = None,
        states: Collection[WorkloadState] | None = None,
        after: int = 0,
        limit: int,
    ) -> list[WorkloadRecord]:
        """One page of workloads in id order: ids above ``after``, at most ``limit``."""
        with self._lock:
            found = [
                w
                for w in sorted(self._in_states(states), key=lambda w: w.id)
                if w.id > after and (owner is None or w.owner == owner)
            ]
            return found[:limit]

    def queue(self, states: Collection[WorkloadState]) -> list[QueueEntry]:
        """Id, priority and sequence of the workloads in ``states``, in arrival order."""
        with self._lock:
            return [
                QueueEntry(w.id, w.priority, w.sequence)
                for w in sorted(self._in_states(states), key=_arrival)
            ]

    def set_explanation(self, workload_id: int, explanation: Json) -> WorkloadRecord:
        """Record why a workload waits, without changing its state."""
        with self._changing():
            return self._write(dataclasses.replace(self._get(workload_id), explanation=_kept(explanation)))

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
                    self._write(dataclasses.replace(record, explanation=_kept(decision.explanation)))
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
                    record, state=WorkloadState.ADMITTED, placement=_kept(placement), explanation=None
                )
            else:
                updated = dataclasses.replace(record, placement=_kept(placement))
            entry = self._event(event, workload_id)
            self._free(workload_id)
            self._reserve(workload_id, adding)
            self._log(entry)
            return self._write(updated)

    def start(self, workload_id: int, event: EventRecord) -> WorkloadRecord:
        """Admitted -> running; idempotent."""
        with self._changing():
            record = self._get(workload_id)
            if not rules.check_start(record):
                return record
            return self._transition(record, event, state=WorkloadState.RUNNING, free=False)

    def release(self, workload_id: int, new_state: WorkloadState, event: EventRecord) -> WorkloadRecord:
        """End a workload as finished or cancelled, freeing its reservations; idempotent."""
        with self._changing():
            record = self._get(workload_id)
            if not rules.check_release(record, new_state):
                return record
            return self._transition(record, event, state=new_state, free=True)

    def evict(self, workload_id: int, event: EventRecord, explanation: Json = None) -> WorkloadRecord:
        """Admitted/running -> evicted, freeing its reservations; idempotent."""
        with self._changing():
            record = self._get(workload_id)
            if not rules.check_evict(record):
                return record
            record = dataclasses.replace(record, placement=None, explanation=_kept(explanation))
            return self._transition(record, event, state=WorkloadState.EVICTED, free=True)

    def requeue(self, workload_id: int, event: EventRecord, *, to_back: bool = False) -> WorkloadRecord:
        """Back to pending, freeing any reservations; idempotent."""
        with self._changing():
            record = self._get(workload_id)
            if not rules.check_requeue(record):
                return record
            record = dataclasses.replace(record, placement=None)
            if to_back:
                record = dataclasses.replace(record, sequence=self._next_sequence)
                self._next_sequence += 1
            return self._transition(record, event, state=WorkloadState.PENDING, free=True)

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

    # -- events --------------------------------------------------------------------------------
    def append_event(self, event: EventRecord) -> EventRecord:
        """Append one event; returns it with its assigned ``seq``."""
        with self._changing():
            if event.workload is not None:
                self._get(event.workload)
            entry = self._event(event, event.workload)
            self._log(entry)
            return _copy_event(entry)

    def list_events(
        self,
        since: int = 0,
        workload: int | None = None,
        limit: int | None = None,
        *,
        owner: str | None = None,
    ) -> list[EventRecord]:
        """Events with ``seq > since`` in order, optionally for one workload or one owner's."""
        with self._lock:
            mine = None if owner is None else {w.id for w in self._workloads.values() if w.owner == owner}
            found = [
                e
                for e in self._events
                if e.seq > since
                and (workload is None or e.workload == workload)
                and (mine is None or e.workload in mine)
            ]
        return [_copy_event(e) for e in found[:limit]]

    def close(self) -> None:
        """Nothing to release."""

    # -- helpers -------------------------------------------------------------------------------
    def _get(self, workload_id: int) -> WorkloadRecord:
        if workload_id not in self._workloads:
            raise NotFoundError("workload", str(workload_id))
        return self._workloads[workload_id]

    def _reserve(self, workload: int, per_node: dict[str, Resources]) -> None:
        """Book a workload's reservations and add them to the per-node totals."""
        self._booking_log.touch(workload, len(self._workloads))
        self._reservations[workload] = per_node
        for node, amount in per_node.items():
            self._booked[node] = self._booked.get(node, EMPTY) + amount

    def _free(self, workload: int) -> None:
        """Drop a workload's reservations and take them off the per-node totals."""
        self._booking_log.touch(workload, len(self._workloads))
        for node, amount in self._reservations.pop(workload, {}).items():
            left = self._booked[node] - amount
            if left:
                self._booked[node] = left
            else:
                del self._booked[node]

    def _live(self) -> list[WorkloadRecord]:
        return sorted(self._in_states(ACTIVE_STATES), key=lambda w: w.id)

    def _in_states(self, states: Collection[WorkloadState] | None) -> list[WorkloadRecord]:
        """The workloads in ``states`` (all for None), in no particular order."""
        if states is None:
            return list(self._workloads.values())
        return [self._workloads[i] for state in set(states) for i in self._by_state.get(state, ())]

    def _write(self, record: WorkloadRecord) -> WorkloadRecord:
        """Store a changed record (kept for roll-back while ``write_decisions`` runs)."""
        if self._before is not None and record.id not in self._before:
            self._before[record.id] = self._workloads.get(record.id)
        self._put(record)
        return record

    def _put(self, record: WorkloadRecord) -> None:
        """Store a record and keep the state index in step."""
        self._drop(record.id)
        self._workloads[record.id] = record
        self._by_state[record.state].add(record.id)

    def _drop(self, workload: int) -> None:
        old = self._workloads.pop(workload, None)
        if old is not None:
            self._by_state[old.state].discard(workload)

    def _event(self, event: EventRecord, workload: int | None) -> EventRecord:
        self._last_seq += 1
        return dataclasses.replace(event, workload=workload, data=copy_json(event.data), seq=self._last_seq)

    def _log(self, entry: EventRecord) -> None:
        if self._history:
            self._events.append(entry)

    def _transition(
        self, record: WorkloadRecord, event: EventRecord, *, state: WorkloadState, free: bool
    ) -> WorkloadRecord:
        entry = self._event(event, record.id)
        if free:
            self._free(record.id)
        self._log(entry)
        written = self._write(dataclasses.replace(record, state=state))
        if state.terminal and not self._history:
            self._drop(record.id)
        return written


def _kept(value: Json) -> Json:
    """What the store keeps of a caller's JSON: a checked, frozen deep copy (see ``frozen``)."""
    return frozen_copy(value)


def _arrival(record: WorkloadRecord) -> tuple[int, int]:
    return record.sequence, record.id


def _copy_event(event: EventRecord) -> EventRecord:
    return dataclasses.replace(event, data=copy_json(event.data))
