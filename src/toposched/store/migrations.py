"""The SQLite schema as an ordered list of migrations, applied at open in one transaction.

Version 0 is an empty file. ``schema_version`` holds one row with the version the file is at.
A migration is never edited once released: change the schema by appending a new one.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from toposched.model import StoreError


@dataclass(frozen=True, slots=True)
class Migration:
    version: int
    description: str
    statements: tuple[str, ...]


MIGRATIONS: tuple[Migration, ...] = (
    Migration(
        1,
        "nodes, topologies, workloads, reservations, events",
        (
            "CREATE TABLE schema_version (version INTEGER NOT NULL)",
            "INSERT INTO schema_version (version) VALUES (0)",
            "CREATE TABLE nodes (name TEXT PRIMARY KEY, data TEXT NOT NULL)",
            "CREATE TABLE topologies (name TEXT PRIMARY KEY, data TEXT NOT NULL)",
            """CREATE TABLE workloads (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                sequence INTEGER NOT NULL UNIQUE,
                name TEXT NOT NULL,
                kind TEXT NOT NULL,
                owner TEXT NOT NULL,
                spec TEXT NOT NULL,
                priority INTEGER NOT NULL,
                topology TEXT NOT NULL,
                submitted_at REAL NOT NULL,
                state TEXT NOT NULL CHECK (state IN
                    ('pending', 'admitted', 'running', 'finished', 'cancelled', 'evicted')),
                placement TEXT
            )""",
            "CREATE INDEX workloads_by_owner ON workloads (owner, sequence)",
            "CREATE INDEX workloads_by_state ON workloads (state, sequence)",
            """CREATE TABLE reservations (
                workload INTEGER NOT NULL REFERENCES workloads (id),
                node TEXT NOT NULL,
                resources TEXT NOT NULL,
                PRIMARY KEY (workload, node)
            )""",
            "CREATE INDEX reservations_by_node ON reservations (node)",
            """CREATE TABLE events (
                seq INTEGER PRIMARY KEY AUTOINCREMENT,
                time REAL NOT NULL,
                workload INTEGER REFERENCES workloads (id),
                type TEXT NOT NULL,
                message TEXT NOT NULL,
                data TEXT
            )""",
            "CREATE INDEX events_by_workload ON events (workload, seq)",
        ),
    ),
    Migration(
        2,
        "OSMO pools; workload pool and explanation",
        (
            """CREATE TABLE pools (
                name TEXT PRIMARY KEY,
                topology TEXT NOT NULL,
                config TEXT
            )""",
            "ALTER TABLE workloads ADD COLUMN pool TEXT NOT NULL DEFAULT ''",
            "ALTER TABLE workloads ADD COLUMN explanation TEXT",
        ),
    ),
    Migration(
        3,
        "index on workload arrival order (each submission reads MAX(sequence))",
        ("CREATE INDEX workloads_by_sequence ON workloads (sequence)",),
    ),
    Migration(
        4,
        "the topologies a workload's spec brought, kept with the workload (NULL: none)",
        ("ALTER TABLE workloads ADD COLUMN own_topologies TEXT",),
    ),
    Migration(
        5,
        "per-user quotas on pending work: each workload's pods and spec bytes, the users' quotas",
        (
            "ALTER TABLE workloads ADD COLUMN pods INTEGER NOT NULL DEFAULT 0",
            "ALTER TABLE workloads ADD COLUMN spec_bytes INTEGER NOT NULL DEFAULT 0",
            # Rows that may wait again; their pods are not known without compiling (0).
            "UPDATE workloads SET spec_bytes = LENGTH(CAST(spec AS BLOB))"
            " WHERE state NOT IN ('finished', 'cancelled')",
            "CREATE INDEX workloads_by_owner_state ON workloads (owner, state)",
            "CREATE TABLE quotas (name TEXT PRIMARY KEY, data TEXT NOT NULL)",
        ),
    ),
    Migration(
        6,
        "generations: which nodes and which workloads' bookings changed since a reader last looked",
        (
            "CREATE TABLE generations (name TEXT PRIMARY KEY, value INTEGER NOT NULL)",
            "INSERT INTO generations (name, value) VALUES ('nodes', 0), ('nodes_floor', 0), ('bookings', 0)",
            "ALTER TABLE nodes ADD COLUMN generation INTEGER NOT NULL DEFAULT 0",
            "CREATE INDEX nodes_by_generation ON nodes (generation)",
            "CREATE TABLE removed_nodes (name TEXT PRIMARY KEY, generation INTEGER NOT NULL)",
            "ALTER TABLE workloads ADD COLUMN generation INTEGER NOT NULL DEFAULT 0",
            "CREATE INDEX workloads_by_generation ON workloads (generation)",
            # toposched stamps what it writes itself (one generation per write); these catch
            # rows another program changes, and every deletion of a node, whoever made it.
            """CREATE TRIGGER node_inserted_elsewhere AFTER INSERT ON nodes WHEN NEW.generation = 0
            BEGIN
                UPDATE generations SET value = value + 1 WHERE name = 'nodes';
                UPDATE nodes SET generation = (SELECT value FROM generations WHERE name = 'nodes')
                    WHERE name = NEW.name;
            END""",
            """CREATE TRIGGER node_updated_elsewhere AFTER UPDATE OF data ON nodes
            WHEN NEW.generation = OLD.generation
            BEGIN
                UPDATE generations SET value = value + 1 WHERE name = 'nodes';
                UPDATE nodes SET generation = (SELECT value FROM generations WHERE name = 'nodes')
                    WHERE name = NEW.name;
            END""",
            """CREATE TRIGGER node_deleted AFTER DELETE ON nodes
            BEGIN
                UPDATE generations SET value = value + 1 WHERE name = 'nodes';
                INSERT OR REPLACE INTO removed_nodes (name, generation)
                    VALUES (OLD.name, (SELECT value FROM generations WHERE name = 'nodes'));
            END""",
            """CREATE TRIGGER workload_updated_elsewhere AFTER UPDATE OF state, placement ON workloads
            WHEN NEW.generation = OLD.generation
            BEGIN
                UPDATE generations SET value = value + 1 WHERE name = 'bookings';
                UPDATE workloads SET generation = (SELECT value FROM generations WHERE name = 'bookings')
                    WHERE id = NEW.id;
            END""",
        ),
    ),
    Migration(
        7,
        "API tokens made by admins (toposched token create): only the SHA-256 of each secret",
        (
            """CREATE TABLE tokens (
                name TEXT PRIMARY KEY,
                user TEXT NOT NULL,
                role TEXT NOT NULL CHECK (role IN ('admin', 'user')),
                sha256 TEXT NOT NULL UNIQUE,
                created_at REAL NOT NULL,
                created_by TEXT NOT NULL
            )""",
        ),
    ),
    Migration(
        8,
        "scheduling queues (toposched queue put): each queue's spec as JSON",
        ("CREATE TABLE queues (name TEXT PRIMARY KEY, data TEXT NOT NULL)",),
    ),
    Migration(
        9,
        "when each workload was last requeued (aging counts from it, or from its submission)",
        ("ALTER TABLE workloads ADD COLUMN pending_since REAL",),
    ),
)

LATEST = MIGRATIONS[-1].version


def current_version(conn: sqlite3.Connection) -> int:
    """The schema version of an open database; 0 for an empty file."""
    exists = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'"
    ).fetchone()
    if exists is None:
        return 0
    row = conn.execute("SELECT version FROM schema_version").fetchone()
    if row is None:
        raise StoreError("the store's schema_version table is empty; the file is damaged")
    return int(row[0])


def migrate(conn: sqlite3.Connection, target: int | None = None) -> int:
    """Bring the schema to ``target`` (default: the latest) in one IMMEDIATE transaction; returns
    the version before.

    ``conn`` must be in autocommit mode (``isolation_level=None``) so the transaction is ours.
    A file newer than this code is refused rather than guessed at.
    """
    latest = MIGRATIONS[-1].version
    target = latest if target is None else target
    conn.execute("BEGIN IMMEDIATE")
    try:
        before = current_version(conn)
        if before > latest:
            raise StoreError(
                f"the store file has schema version {before}, newer than this toposched "
                f"understands ({latest}); upgrade toposched to open it"
            )
        for migration in MIGRATIONS:
            if before < migration.version <= target:
                for statement in migration.statements:
                    conn.execute(statement)
                conn.execute("UPDATE schema_version SET version = ?", (migration.version,))
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    return before
