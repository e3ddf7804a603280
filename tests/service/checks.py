"""Invariants read straight from the SQLite file after the server is gone."""

from __future__ import annotations

from pathlib import Path

from toposched.store import SqliteStore


def overcommitted(db: Path) -> list[str]:
    """Every (node, resource) whose reservations exceed its allocatable; empty when all is well."""
    store = SqliteStore(db)
    try:
        reserved = store.reserved_by_node()
        nodes = {n.name: n for n in store.get_nodes()}
    finally:
        store.close()
    bad = []
    for name, booked in reserved.items():
        node = nodes.get(name)
        for resource, amount in booked.items():
            limit = node.allocatable[resource] if node is not None else 0
            if amount > limit:
                bad.append(f"{name}: {resource} reserved {amount} > allocatable {limit}")
    return bad


def holding_capacity(db: Path) -> int:
    """How many workloads hold reservations (so the over-commit check had something to check)."""
    store = SqliteStore(db)
    try:
        return sum(1 for w in store.list_workloads() if w.state.holds_capacity)
    finally:
        store.close()
