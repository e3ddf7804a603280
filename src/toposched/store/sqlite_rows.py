"""Row helpers of ``SqliteStore``: each runs inside a transaction its caller opened (see
``sqlite_connections``) and reads or writes the rows of one table in domain terms."""

from __future__ import annotations

import functools
import json
import sqlite3
from collections.abc import Collection
from typing import Any

from toposched.model import Node, NotFoundError, Quota, Resources, Topology, Usage
from toposched.store.codecs import (
    dumps,
    loads,
    node_from_json,
    quota_from_json,
    resources_from_json,
    resources_to_json,
    topology_from_json,
    workload_from_row,
)
from toposched.store.records import EventRecord, WorkloadRecord, WorkloadState
from toposched.store.rules import known_names

WORKLOAD_COLUMNS = (
    "id, sequence, name, kind, owner, spec, priority, topology, pool, submitted_at, state, placement,"
    " explanation, own_topologies, pods"
)
_EVENT_COLUMNS = "seq, time, workload, type, message, data"


def workload_filter(owner: str | None, states: Collection[WorkloadState] | None) -> tuple[str, list[Any]]:
    """The WHERE clause (and its parameters) for one owner's workloads in some states."""
    where = ["1"]
    params: list[Any] = []
    if owner is not None:
        where.append("owner = ?")
        params.append(owner)
    if states is not None:
        where.append(f"state IN ({', '.join('?' for _ in states)})" if states else "0")
        params.extend(str(WorkloadState(s)) for s in states)
    return " AND ".join(where), params


def read_workload(db: sqlite3.Connection, workload_id: int) -> WorkloadRecord:
    row = db.execute(f"SELECT {WORKLOAD_COLUMNS} FROM workloads WHERE id = ?", (workload_id,)).fetchone()
    if row is None:
        raise NotFoundError("workload", str(workload_id))
    return workload_from_row(row)


def read_quota(db: sqlite3.Connection, user: str) -> Quota | None:
    """The quota stored for ``user``; None when they have none of their own."""
    row = db.execute("SELECT data FROM quotas WHERE name = ?", (user,)).fetchone()
    return None if row is None else quota_from_json(loads(row[0], f"quota of {user!r}"), f"quota of {user!r}")


def pending_usage(db: sqlite3.Connection, owner: str) -> Usage:
    """``owner``'s pending work (through the index on owner and state)."""
    count, pods, size = db.execute(
        "SELECT COUNT(*), COALESCE(SUM(pods), 0), COALESCE(SUM(spec_bytes), 0) FROM workloads"
        " WHERE owner = ? AND state = ?",
        (owner, str(WorkloadState.PENDING)),
    ).fetchone()
    return Usage(int(count), int(pods), int(size))


def stamp(db: sqlite3.Connection, table: str) -> int:
    """The next generation of ``table`` ("nodes" or "bookings"), for the rows this write changes."""
    row = db.execute("UPDATE generations SET value = value + 1 WHERE name = ? RETURNING value", (table,))
    return int(row.fetchone()[0])


def next_sequence(db: sqlite3.Connection) -> int:
    # Safe: callers hold the write lock, and workloads are never deleted.
    return int(db.execute("SELECT COALESCE(MAX(sequence), 0) + 1 FROM workloads").fetchone()[0])


@functools.lru_cache(maxsize=4096)
def read_reservation(text: str) -> Resources:
    """One stored reservation. Few distinct texts recur (one per pod shape and count), and
    Resources are immutable values, so each is decoded once: a cycle reads every reservation."""
    return resources_from_json(loads(text, "reservation"), "reservation")


@functools.lru_cache(maxsize=4096)
def reservation_text(resources: Resources) -> str:
    """How one reservation is stored (what ``read_reservation`` reads back): encoded once per
    distinct value, like it is decoded once, as an admission writes one row per node."""
    return dumps(resources_to_json(resources))


def booked_by_node(db: sqlite3.Connection, *, exclude: int | None = None) -> dict[str, Resources]:
    """Reservations summed per node, leaving out workload ``exclude``."""
    total: dict[str, Resources] = {}
    rows = db.execute("SELECT node, resources FROM reservations WHERE workload IS NOT ?", (exclude,))
    for node, text in rows:
        total[node] = total.get(node, Resources()) + read_reservation(text)
    return total


def booked_on(
    db: sqlite3.Connection, nodes: Collection[str], *, exclude: int | None = None
) -> dict[str, Resources]:
    """Reservations summed per node of ``nodes`` only (through the index on ``node``), leaving
    out workload ``exclude``: a capacity check costs what the nodes it books hold, not what the
    whole cluster holds."""
    total: dict[str, Resources] = {}
    rows = db.execute(
        "SELECT node, resources FROM reservations"
        " WHERE node IN (SELECT value FROM json_each(?)) AND workload IS NOT ?",
        (json.dumps(list(nodes)), exclude),
    )
    for node, text in rows:
        total[node] = total.get(node, Resources()) + read_reservation(text)
    return total


def allocatable_of(db: sqlite3.Connection, names: Collection[str]) -> dict[str, Resources | None]:
    """The allocatable of each of ``names`` in one query (None for a node that is unknown): only
    that field of each node is read, and each distinct value decoded once (``read_allocatable``),
    so an admission's capacity check costs what it books, whatever the size of the cluster."""
    found: dict[str, Resources | None] = dict.fromkeys(names)
    rows = db.execute(
        "SELECT name, json_extract(data, '$.allocatable') FROM nodes"
        " WHERE name IN (SELECT value FROM json_each(?))",
        (json.dumps(list(names)),),
    )
    for name, text in rows:
        found[name] = read_allocatable(text)
    return found


@functools.lru_cache(maxsize=1024)
def read_allocatable(text: str) -> Resources:
    """One node's stored allocatable: nodes mostly share a few, decoded once each."""
    return resources_from_json(loads(text, "node allocatable"), "node allocatable")


def insert_event(db: sqlite3.Connection, event: EventRecord, workload: int | None) -> int:
    cursor = db.execute(
        "INSERT INTO events (time, workload, type, message, data) VALUES (?, ?, ?, ?, ?)",
        (
            event.time,
            workload,
            event.type,
            event.message,
            None if event.data is None else dumps(event.data),
        ),
    )
    assert cursor.lastrowid is not None  # an INSERT into a rowid table always sets it
    return cursor.lastrowid


def read_events(
    db: sqlite3.Connection, where: str, params: list[Any], limit: int | None = None
) -> list[EventRecord]:
    # LIMIT -1 means no limit in SQLite.
    sql = f"SELECT {_EVENT_COLUMNS} FROM events WHERE {where} ORDER BY seq LIMIT ?"
    rows = db.execute(sql, [*params, -1 if limit is None else limit]).fetchall()
    return [EventRecord(r[3], r[4], r[1], r[2], loads(r[5], f"event {r[0]} data"), r[0]) for r in rows]


def transition(
    db: sqlite3.Connection,
    record: WorkloadRecord,
    event: EventRecord,
    state: WorkloadState,
    *,
    free: bool,
) -> None:
    """Move a workload to ``state`` and log ``event``; ``free`` also deletes its reservations
    (a change of its bookings: see ``sqlite_changes``)."""
    if free:
        db.execute("DELETE FROM reservations WHERE workload = ?", (record.id,))
        db.execute(
            "UPDATE workloads SET state = ?, generation = ? WHERE id = ?",
            (str(state), stamp(db, "bookings"), record.id),
        )
    else:
        db.execute("UPDATE workloads SET state = ? WHERE id = ?", (str(state), record.id))
    insert_event(db, event, record.id)


class NodeReader:
    """Nodes read from their stored JSON, decoded once per distinct text (the cache is bounded:
    it is emptied when full and refilled by the next reads). Calls run inside a transaction."""

    def __init__(self, size: int = 20_000) -> None:
        self._size = size
        self._cache: dict[str, Node] = {}

    def decode(self, text: str, what: str) -> Node:
        node = self._cache.get(text)
        if node is None:
            node = node_from_json(loads(text, what))
            if len(self._cache) >= self._size:
                self._cache.clear()
            self._cache[text] = node
        return node

    def get(self, db: sqlite3.Connection, name: str) -> Node:
        row = db.execute("SELECT data FROM nodes WHERE name = ?", (name,)).fetchone()
        if row is None:
            raise NotFoundError("node", name)
        return self.decode(row[0], f"node {name!r}")


def read_topology(db: sqlite3.Connection, name: str) -> Topology:
    row = db.execute("SELECT data FROM topologies WHERE name = ?", (name,)).fetchone()
    if row is None:
        known = [r[0] for r in db.execute("SELECT name FROM topologies")]
        raise NotFoundError("topology", name, f"known topologies: {known_names(known)}")
    return decode_topology(row[0], f"topology {name!r}")


@functools.lru_cache(maxsize=256)
def decode_topology(text: str, what: str) -> Topology:
    """One stored topology. Topologies are immutable values that rarely change, and decoding
    validates every level and alias: every submission and every cycle reads them."""
    return topology_from_json(loads(text, what))
