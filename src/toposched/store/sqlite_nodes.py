"""The nodes and topologies of ``SqliteStore`` (the ``nodes`` and ``topologies`` tables); nodes
carry the generation of their last write, which ``sqlite_changes`` reads."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterable, Mapping
from contextlib import AbstractContextManager

from toposched.model import Node, NotFoundError, Resources, Taint, Topology
from toposched.store import rules
from toposched.store import sqlite_changes as changes
from toposched.store.codecs import dumps, node_to_json, topology_to_json
from toposched.store.records import ACTIVE_STATES
from toposched.store.sqlite_rows import NodeReader, decode_topology, read_topology, stamp


class SqliteNodes:
    """The node and topology methods of the ``Store`` protocol, over ``SqliteStore``'s transactions."""

    _tx: Callable[..., AbstractContextManager[sqlite3.Connection]]
    _nodes: NodeReader

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
