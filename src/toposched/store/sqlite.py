"""``SqliteStore``: the default ``Store``, one SQLite file in WAL mode.

Durability: ``synchronous=FULL``, so a call that returned has reached the disk and survives a crash
or power loss; every state change is one ``BEGIN IMMEDIATE`` transaction, so a crash leaves either
all of it or none of it. Capacity checks run inside the admitting transaction, which holds the
write lock from its first read, so two writers (threads or processes) can never both book the same
capacity.

Threads: one connection for writes, under a lock (SQLite admits one writer at a time anyway, and
the lock keeps a thread pool from interleaving statements of two transactions on one connection),
and one read connection per thread (``sqlite_connections``): in WAL mode readers see the last
commit without waiting for a writer's fsync, so a request's read never queues behind the loop's.
"""

from __future__ import annotations

import dataclasses
import json
import os
import sqlite3
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from types import TracebackType
from typing import Any, TypeVar, cast

from toposched.model import ConflictError, Node, NotFoundError, Quota, Resources, Taint, Topology
from toposched.store import rules
from toposched.store import sqlite_changes as changes
from toposched.store.batching import GroupCommit
from toposched.store.codecs import (
    dumps,
    node_to_json,
    own_topologies_text,
    topology_to_json,
    workload_from_row,
)
from toposched.store.records import (
    ACTIVE_STATES,
    Admission,
    Decision,
    EventRecord,
    Json,
    QueueEntry,
    WorkloadRecord,
    WorkloadState,
)
from toposched.store.sqlite_changes import SqliteChanges
from toposched.store.sqlite_connections import Connections
from toposched.store.sqlite_pools import SqlitePools
from toposched.store.sqlite_queues import SqliteQueues
from toposched.store.sqlite_quotas import SqliteQuotas
from toposched.store.sqlite_rows import (
    WORKLOAD_COLUMNS,
    NodeReader,
    allocatable_of,
    booked_by_node,
    booked_on,
    decode_topology,
    insert_event,
    next_sequence,
    pending_usage,
    read_events,
    read_quota,
    read_reservation,
    read_topology,
    read_workload,
    reservation_text,
    stamp,
    transition,
    workload_filter,
)
from toposched.store.sqlite_tokens import SqliteTokens

R = TypeVar("R")
_Write = tuple[str, Callable[[sqlite3.Connection], object]]  # what it does (for errors), and how


class SqliteStore(SqliteQuotas, SqliteQueues, SqlitePools, SqliteTokens, SqliteChanges):
    """The scheduler's state in one SQLite file (created and migrated on open)."""

    def __init__(self, path: str | os.PathLike[str], *, busy_timeout: float = 10.0) -> None:
        self._db = Connections(path, busy_timeout=busy_timeout)
        self.path = self._db.path
        self.migrated_from = self._db.migrated_from
        self._tx = self._db.tx
        # Request-path writes (submissions, releases) that arrive while another commits are
        # stored together by the next commit: one transaction and one fsync for the whole run.
        self._writes: GroupCommit[_Write, object] = GroupCommit(self._write_batch)
        # Decoded nodes by their stored JSON text: nodes are immutable values and decoding (with
        # label validation) is the costly part of reading them every cycle.
        self._nodes = NodeReader()

    def __enter__(self) -> SqliteStore:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def close(self) -> None:
        """Close the connections; later calls raise StoreError."""
        self._db.close()

    def version(self) -> int:
        """A number that moves on with every commit, by this store or another process."""
        return self._db.data_version()

    # -- nodes ---------------------------------------------------------------------------------
    def put_nodes(self, nodes: Iterable[Node], *, replace: bool = False) -> None:
        """Insert or overwrite nodes by name; with ``replace`` also delete every node not listed."""
        rows = [(node.name, dumps(node_to_json(node))) for node in nodes]
        with self._tx("storing nodes", write=True) as db:
            generation = stamp(db, "nodes")
            if replace:  # only the nodes not listed: the others are written over below
                db.execute(
                    "DELETE FROM nodes WHERE name NOT IN (SELECT value FROM json_each(?))",
                    (json.dumps([name for name, _ in rows]),),
                )
                changes.bound_removed(db)
            db.executemany(
                "INSERT OR REPLACE INTO nodes (name, data, generation) VALUES (?, ?, ?)",
                [(name, data, generation) for name, data in rows],
            )

    def get_nodes(self) -> list[Node]:
        """Every node, sorted by name."""
        with self._tx("reading nodes") as db:
            rows = db.execute("SELECT data FROM nodes ORDER BY name").fetchall()
        return [self._nodes.decode(row[0], "node") for row in rows]

    def get_node(self, name: str) -> Node:
        """One node by name."""
        with self._tx("reading a node") as db:
            return self._nodes.get(db, name)

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
        with self._tx("updating a node", write=True) as db:
            node = rules.updated_node(
                self._nodes.get(db, name), ready, unschedulable, taints, labels, allocatable
            )
            db.execute(
                "UPDATE nodes SET data = ?, generation = ? WHERE name = ?",
                (dumps(node_to_json(node)), stamp(db, "nodes"), name),
            )
            return node

    def delete_node(self, name: str) -> None:
        """Forget a node. Its reservations stay with their workloads until released."""
        with self._tx("deleting a node", write=True) as db:
            if db.execute("DELETE FROM nodes WHERE name = ?", (name,)).rowcount == 0:
                raise NotFoundError("node", name)
            changes.bound_removed(db)

    # -- topologies ----------------------------------------------------------------------------
    def put_topology(self, topology: Topology) -> None:
        """Insert or overwrite a topology by name."""
        data = dumps(topology_to_json(topology))
        with self._tx("storing a topology", write=True) as db:
            db.execute("INSERT OR REPLACE INTO topologies (name, data) VALUES (?, ?)", (topology.name, data))

    def get_topology(self, name: str) -> Topology:
        """One topology by name."""
        with self._tx("reading a topology") as db:
            return read_topology(db, name)

    def list_topologies(self) -> list[Topology]:
        """Every topology, sorted by name."""
        with self._tx("reading topologies") as db:
            rows = db.execute("SELECT data FROM topologies ORDER BY name").fetchall()
        return [decode_topology(row[0], "topology") for row in rows]

    def delete_topology(self, name: str) -> None:
        """Delete a topology; ConflictError while a live workload or a pool references it."""
        live = ", ".join(f"'{state}'" for state in sorted(ACTIVE_STATES))
        with self._tx("deleting a topology", write=True) as db:
            read_topology(db, name)
            users = db.execute(
                f"SELECT id FROM workloads WHERE topology = ? AND state IN ({live}) ORDER BY id", (name,)
            ).fetchall()
            pools = db.execute("SELECT name FROM pools WHERE topology = ? ORDER BY name", (name,)).fetchall()
            rules.check_topology_unused(name, [r[0] for r in users], [r[0] for r in pools])
            db.execute("DELETE FROM topologies WHERE name = ?", (name,))

    # -- workloads -----------------------------------------------------------------------------
    def submit_workload(
        self, record: WorkloadRecord, event: EventRecord | None = None, quota: Quota | None = None
    ) -> WorkloadRecord:
        """Store a new pending workload (and ``event`` for it); assigns ``id`` and ``sequence``.
        ``quota`` (or the owner's own) is checked inside the same transaction.

        Group commit (``batching.GroupCommit``): submissions and releases that arrive while
        another batch is committing wait, and the next of them commits all waiting ones in one
        transaction (one fsync). Each call still returns only after the transaction holding its
        workload committed.
        """
        return self._grouped(
            "submitting a workload", lambda db: self._insert_workload(db, record, event, quota)
        )

    def _grouped(self, action: str, op: Callable[[sqlite3.Connection], R]) -> R:
        """``op`` in a write transaction shared with the other grouped writes waiting meanwhile.
        A batch that fails is retried one write at a time, so each caller gets its own outcome."""
        return cast(R, self._writes((action, op)))

    def _write_batch(self, batch: Sequence[_Write]) -> list[object]:
        action = batch[0][0] if len(batch) == 1 else f"storing {len(batch)} changes"
        with self._tx(action, write=True) as db:
            return [op(db) for _, op in batch]

    def _insert_workload(
        self, db: sqlite3.Connection, record: WorkloadRecord, event: EventRecord | None, quota: Quota | None
    ) -> WorkloadRecord:
        adding = rules.usage_of(record)
        quota = read_quota(db, record.owner) or quota
        if quota is not None:
            rules.check_quota(record.owner, pending_usage(db, record.owner), adding, quota)
        # One statement assigns the next sequence, inserts and reads the row back: every SQLite
        # call lets other threads take the GIL, and winning it back can take a switch interval.
        rows = db.execute(
            "INSERT INTO workloads (sequence, name, kind, owner, spec, priority, topology, pool,"
            " submitted_at, state, own_topologies, pods, spec_bytes) VALUES"
            " ((SELECT COALESCE(MAX(sequence), 0) + 1 FROM workloads),"
            f" ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING {WORKLOAD_COLUMNS}",
            (
                record.name,
                record.kind,
                record.owner,
                record.spec,
                record.priority,
                record.topology,
                record.pool,
                record.submitted_at,
                str(WorkloadState.PENDING),
                own_topologies_text(record.own_topologies),
                record.pods,
                adding.spec_bytes,
            ),
        ).fetchall()  # all rows, so the statement is finished before the transaction commits
        stored = workload_from_row(rows[0])
        if event is not None:
            insert_event(db, event, stored.id)
        return stored

    def get_workload(self, workload_id: int) -> WorkloadRecord:
        """One workload by id."""
        with self._tx("reading a workload") as db:
            return read_workload(db, workload_id)

    def list_workloads(
        self, owner: str | None = None, states: Collection[WorkloadState] | None = None
    ) -> list[WorkloadRecord]:
        """Workloads in arrival order, optionally only one owner's and only some states."""
        clause, params = workload_filter(owner, states)
        with self._tx("listing workloads") as db:
            rows = db.execute(
                f"SELECT {WORKLOAD_COLUMNS} FROM workloads WHERE {clause} ORDER BY sequence, id", params
            ).fetchall()
        return [workload_from_row(row) for row in rows]

    def page_workloads(
        self,
        *,
        owner: str | None = None,
        states: Collection[WorkloadState] | None = None,
        after: int = 0,
        limit: int,
    ) -> list[WorkloadRecord]:
        """One page of workloads in id order: ids above ``after``, at most ``limit`` (in SQL)."""
        clause, params = workload_filter(owner, states)
        with self._tx("listing workloads") as db:
            rows = db.execute(
                f"SELECT {WORKLOAD_COLUMNS} FROM workloads WHERE id > ? AND {clause} ORDER BY id LIMIT ?",
                [after, *params, limit],
            ).fetchall()
        return [workload_from_row(row) for row in rows]

    def queue(self, states: Collection[WorkloadState]) -> list[QueueEntry]:
        """Id, priority and sequence of the workloads in ``states``, in arrival order."""
        marks = ", ".join("?" for _ in states) or "NULL"
        with self._tx("listing the queue") as db:
            rows = db.execute(
                f"SELECT id, priority, sequence FROM workloads WHERE state IN ({marks}) ORDER BY sequence, id",
                [str(WorkloadState(s)) for s in states],
            ).fetchall()
        return [QueueEntry(r[0], r[1], r[2]) for r in rows]

    def set_explanation(self, workload_id: int, explanation: Json) -> WorkloadRecord:
        """Record why a workload waits, without changing its state."""
        text = None if explanation is None else dumps(explanation)
        with self._tx("storing an explanation", write=True) as db:
            read_workload(db, workload_id)
            db.execute("UPDATE workloads SET explanation = ? WHERE id = ?", (text, workload_id))
            return read_workload(db, workload_id)

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

    def start(self, workload_id: int, event: EventRecord) -> WorkloadRecord:
        """Admitted -> running; idempotent."""
        with self._tx("starting a workload", write=True) as db:
            record = read_workload(db, workload_id)
            if rules.check_start(record):
                transition(db, record, event, WorkloadState.RUNNING, free=False)
            return read_workload(db, workload_id)

    def release(self, workload_id: int, new_state: WorkloadState, event: EventRecord) -> WorkloadRecord:
        """End a workload as finished or cancelled, freeing its reservations; idempotent."""
        return self._grouped(
            "releasing a workload", lambda db: self._release(db, workload_id, new_state, event)
        )

    def _release(
        self, db: sqlite3.Connection, workload_id: int, new_state: WorkloadState, event: EventRecord
    ) -> WorkloadRecord:
        record = read_workload(db, workload_id)
        if not rules.check_release(record, new_state):
            return record
        transition(db, record, event, new_state, free=True)
        return dataclasses.replace(record, state=new_state)  # the row as it now reads

    def evict(self, workload_id: int, event: EventRecord, explanation: Json = None) -> WorkloadRecord:
        """Admitted/running -> evicted, freeing its reservations; idempotent."""
        text = None if explanation is None else dumps(explanation)
        with self._tx("evicting a workload", write=True) as db:
            record = read_workload(db, workload_id)
            if rules.check_evict(record):
                db.execute(
                    "UPDATE workloads SET placement = NULL, explanation = ? WHERE id = ?", (text, workload_id)
                )
                transition(db, record, event, WorkloadState.EVICTED, free=True)
            return read_workload(db, workload_id)

    def requeue(self, workload_id: int, event: EventRecord, *, to_back: bool = False) -> WorkloadRecord:
        """Back to pending, freeing any reservations; idempotent."""
        with self._tx("requeueing a workload", write=True) as db:
            record = read_workload(db, workload_id)
            if rules.check_requeue(record):
                db.execute("UPDATE workloads SET placement = NULL WHERE id = ?", (workload_id,))
                if to_back:
                    db.execute(
                        "UPDATE workloads SET sequence = ? WHERE id = ?",
                        (next_sequence(db), workload_id),
                    )
                transition(db, record, event, WorkloadState.PENDING, free=True)
            return read_workload(db, workload_id)

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

    # -- events --------------------------------------------------------------------------------
    def append_event(self, event: EventRecord) -> EventRecord:
        """Append one event; returns it with its assigned ``seq``."""
        with self._tx("appending an event", write=True) as db:
            if event.workload is not None:
                read_workload(db, event.workload)
            seq = insert_event(db, event, event.workload)
            return read_events(db, "seq = ?", [seq])[0]

    def list_events(
        self,
        since: int = 0,
        workload: int | None = None,
        limit: int | None = None,
        *,
        owner: str | None = None,
    ) -> list[EventRecord]:
        """Events with ``seq > since`` in order, optionally for one workload or only for the
        workloads of ``owner`` (filtered in SQL), at most ``limit``."""
        where = "seq > ?"
        params: list[Any] = [since]
        if workload is not None:
            where, params = where + " AND workload = ?", [*params, workload]
        if owner is not None:
            where += " AND workload IN (SELECT id FROM workloads WHERE owner = ?)"
            params = [*params, owner]
        with self._tx("reading events") as db:
            return read_events(db, where, params, limit)


def _booking(admission: Admission) -> tuple[int, Json, Mapping[str, Resources], EventRecord]:
    return admission.workload, admission.placement, admission.reservations, admission.event
