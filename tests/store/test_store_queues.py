"""Scheduling queues in both stores: put (insert or replace), get, list by name, delete; a write
that would break the tree is a SpecError and changes nothing; the SQLite file keeps them across
reopening, a file of schema version 7 gains the table, and a damaged row is a StoreError."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from toposched.model import NotFoundError, SchedulingQueue, SpecError, StoreError
from toposched.store import SqliteStore, Store
from toposched.store.migrations import migrate

GPU = "nvidia.com/gpu"
ORG = SchedulingQueue.parse({"name": "org", "guaranteed": {GPU: 16}})
TEAM = SchedulingQueue.parse(
    {"name": "team-a", "parent": "org", "guaranteed": {GPU: 8}, "limit": {GPU: 12}, "localQueues": ["a/q"]}
)


def test_put_get_list_delete(store: Store) -> None:
    store.put_queue(ORG)
    store.put_queue(TEAM)
    assert store.list_queues() == [ORG, TEAM]
    assert store.get_queue("team-a") == TEAM
    heavier = SchedulingQueue.parse({**TEAM.to_json(), "weight": 3})
    store.put_queue(heavier)
    assert store.get_queue("team-a") == heavier
    store.delete_queue("team-a")
    assert store.list_queues() == [ORG]


def test_unknown_queue_is_not_found(store: Store) -> None:
    with pytest.raises(NotFoundError):
        store.get_queue("nope")
    with pytest.raises(NotFoundError):
        store.delete_queue("nope")


def test_a_queue_breaking_the_tree_is_refused_and_nothing_changes(store: Store) -> None:
    store.put_queue(ORG)
    store.put_queue(TEAM)
    with pytest.raises(SpecError, match="does not exist"):
        store.put_queue(SchedulingQueue.parse({"name": "b", "parent": "nowhere"}))
    with pytest.raises(SpecError, match="cycle"):
        store.put_queue(SchedulingQueue.parse({"name": "org", "parent": "team-a"}))
    with pytest.raises(SpecError, match="feeds queue"):
        store.put_queue(SchedulingQueue.parse({"name": "c", "localQueues": ["a/q"]}))
    with pytest.raises(SpecError):
        store.delete_queue("org")  # team-a names it as parent
    assert store.list_queues() == [ORG, TEAM]


def test_queues_outlive_reopening(tmp_path: Path) -> None:
    with SqliteStore(tmp_path / "state.db") as store:
        store.put_queue(ORG)
        store.put_queue(TEAM)
    with SqliteStore(tmp_path / "state.db") as store:
        assert store.list_queues() == [ORG, TEAM]


def test_a_version_7_file_gains_the_queues_table(tmp_path: Path) -> None:
    path = tmp_path / "state.db"
    conn = sqlite3.connect(path, isolation_level=None)
    migrate(conn, target=7)
    conn.close()
    with SqliteStore(path) as store:
        assert store.migrated_from == 7
        store.put_queue(ORG)
        assert store.list_queues() == [ORG]


def test_a_damaged_row_is_a_store_error(tmp_path: Path) -> None:
    path = tmp_path / "state.db"
    with SqliteStore(path) as store:
        store.put_queue(ORG)
    conn = sqlite3.connect(path)
    conn.execute("""UPDATE queues SET data = '{"name": "org", "weight": -1}'""")
    conn.commit()
    conn.close()
    with SqliteStore(path) as store, pytest.raises(StoreError, match="queue 'org' is damaged"):
        store.list_queues()
