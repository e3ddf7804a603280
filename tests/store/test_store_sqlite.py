"""What only the SQLite store promises: durability across restarts, pragmas, migrations, errors,
and capacity safety under concurrent writers."""

from __future__ import annotations

import sqlite3
import threading
from dataclasses import replace
from pathlib import Path

import pytest

from toposched.model import ConflictError, Quota, QuotaExceededError, StoreError, Topology
from toposched.store import (
    SCHEMA_VERSION,
    EventRecord,
    PoolRecord,
    SqliteStore,
    WorkloadState,
    sqlite_bookings,
)
from toposched.store.migrations import MIGRATIONS, current_version, migrate

from .conftest import HOSTNAME, RACK, TAINT, TOPOLOGY, event, gpu_node, gpus, workload


def test_everything_survives_reopen(tmp_path: Path) -> None:
    path = tmp_path / "state.db"
    with SqliteStore(path) as first:
        first.put_nodes([gpu_node("n1"), gpu_node("n2")])
        first.update_node("n2", ready=False, taints=(TAINT,))
        first.put_topology(TOPOLOGY)
        first.put_pool(PoolRecord("pool", "default", {"quota": 8}))
        admitted = first.submit_workload(workload("a", topology="default"))
        first.admit(admitted.id, {"pods": ["n1"]}, {"n1": gpus(4)}, event())
        waiting = first.set_explanation(first.submit_workload(workload("b")).id, {"why": "no room"})
        nodes, events = first.get_nodes(), first.list_events()
    with SqliteStore(path) as second:
        assert second.migrated_from == SCHEMA_VERSION
        assert second.get_nodes() == nodes
        assert second.list_topologies() == [TOPOLOGY]
        assert second.get_pool("pool") == PoolRecord("pool", "default", {"quota": 8})
        assert second.get_workload(admitted.id).state is WorkloadState.ADMITTED
        assert second.get_workload(waiting.id) == waiting
        assert second.reserved_by_node() == {"n1": gpus(4)}
        assert second.list_events() == events
        # Ids and arrival order continue where the first process stopped.
        assert second.submit_workload(workload("c")).sequence == waiting.sequence + 1


def test_pragmas_give_wal_full_sync_and_foreign_keys(tmp_path: Path) -> None:
    with SqliteStore(tmp_path / "state.db") as store:
        conn = store._db._conn
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert conn.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
        assert conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
        assert conn.execute("PRAGMA busy_timeout").fetchone()[0] > 0


def test_close_leaves_every_commit_in_the_database_file_while_another_connection_is_open(
    tmp_path: Path,
) -> None:
    path = tmp_path / "state.db"
    other = sqlite3.connect(path)  # SQLite checkpoints on its own only when the last one closes
    try:
        store = SqliteStore(path)
        store.put_nodes([gpu_node("n1")])
        store.submit_workload(workload("a"))
        other.execute("SELECT count(*) FROM sqlite_master").fetchone()  # it now has the WAL open
        store.close()
        wal = path.with_name(path.name + "-wal")
        assert not wal.exists() or wal.stat().st_size == 0
    finally:
        other.close()
    copy = tmp_path / "copy.db"
    copy.write_bytes(path.read_bytes())  # the database file alone
    with SqliteStore(copy) as reopened:
        assert [node.name for node in reopened.get_nodes()] == ["n1"]
        assert [record.name for record in reopened.list_workloads()] == ["a"]


def _file_at_version(path: Path, version: int) -> sqlite3.Connection:
    conn = sqlite3.connect(path, isolation_level=None)
    migrate(conn, target=version)
    return conn


def test_damaged_own_topologies_are_reported_on_their_workload(tmp_path: Path) -> None:
    path = tmp_path / "state.db"
    with SqliteStore(path) as store:
        own = Topology.create("mine", [RACK, HOSTNAME])
        damaged = store.submit_workload(replace(workload("a", topology="mine"), own_topologies=(own,)))
        fine = store.submit_workload(workload("b"))
    raw = sqlite3.connect(path)
    raw.execute("UPDATE workloads SET own_topologies = '[{\"name\": 7}]' WHERE id = ?", (damaged.id,))
    raw.commit()
    raw.close()
    with SqliteStore(path) as store:
        read = store.get_workload(damaged.id)
        assert read.own_topologies == () and "topology" in read.damage
        assert store.get_workload(fine.id).damage == ""
        assert len(store.list_workloads()) == 2


def test_empty_file_is_version_zero_and_migrates_to_latest(tmp_path: Path) -> None:
    path = tmp_path / "state.db"
    assert current_version(_file_at_version(path, 0)) == 0
    with SqliteStore(path) as store:
        assert store.migrated_from == 0
        assert current_version(store._db._conn) == SCHEMA_VERSION == MIGRATIONS[-1].version


def test_version_one_file_migrates_keeping_its_rows(tmp_path: Path) -> None:
    path = tmp_path / "state.db"
    conn = _file_at_version(path, 1)
    conn.execute(
        "INSERT INTO workloads (sequence, name, kind, owner, spec, priority, topology, submitted_at, state)"
        " VALUES (1, 'old', 'Job', 'alice', 'kind: Job', 5, 'default', 2.0, 'pending')"
    )
    conn.execute("INSERT INTO events (time, workload, type, message) VALUES (3.0, 1, 'Submitted', 'hi')")
    conn.close()
    with SqliteStore(path) as store:
        assert store.migrated_from == 1
        old = store.get_workload(1)
        assert (old.name, old.priority, old.pool, old.explanation) == ("old", 5, "", None)
        assert [e.message for e in store.list_events()] == ["hi"]
        store.put_pool(PoolRecord("new-in-v2"))  # the table version 2 added
        assert [p.name for p in store.list_pools()] == ["new-in-v2"]


def test_migrations_are_numbered_in_order() -> None:
    assert [m.version for m in MIGRATIONS] == list(range(1, len(MIGRATIONS) + 1))


def test_file_from_a_newer_version_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "state.db"
    conn = _file_at_version(path, SCHEMA_VERSION)
    conn.execute("UPDATE schema_version SET version = ?", (SCHEMA_VERSION + 1,))
    conn.close()
    with pytest.raises(StoreError, match=rf"schema version {SCHEMA_VERSION + 1}, newer than"):
        SqliteStore(path)


def test_failed_migration_leaves_the_file_untouched(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from toposched.store import migrations

    path = tmp_path / "state.db"
    _file_at_version(path, 1).close()
    broken = (*MIGRATIONS, migrations.Migration(SCHEMA_VERSION + 1, "broken", ("CREATE TABLE pools (x)",)))
    monkeypatch.setattr(migrations, "MIGRATIONS", broken)
    with pytest.raises(sqlite3.OperationalError):
        migrate(sqlite3.connect(path, isolation_level=None))
    assert current_version(sqlite3.connect(path)) == 1


def test_not_a_database_is_a_store_error(tmp_path: Path) -> None:
    path = tmp_path / "state.db"
    path.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(StoreError, match="cannot open the store"):
        SqliteStore(path)


def test_closed_store_raises_store_error(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "state.db")
    store.close()
    with pytest.raises(StoreError, match="reading nodes failed"):
        store.get_nodes()


def test_sqlite_failure_mid_admit_rolls_everything_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = SqliteStore(tmp_path / "state.db")
    store.put_nodes([gpu_node("n1")])
    record = store.submit_workload(workload())

    def fail(*args: object) -> int:
        raise sqlite3.OperationalError("disk I/O error")

    # The event is the last write of admit: state and reservations are already written when it fails.
    monkeypatch.setattr(sqlite_bookings, "insert_event", fail)
    with pytest.raises(
        StoreError, match=r"admitting a workload failed .* disk I/O error; nothing was changed"
    ):
        store.admit(record.id, {"p": 1}, {"n1": gpus(2)}, event())
    monkeypatch.undo()
    assert store.get_workload(record.id).state is WorkloadState.PENDING
    assert store.reserved_by_node() == {}
    assert store.admit(record.id, {"p": 1}, {"n1": gpus(2)}, event()).state is WorkloadState.ADMITTED


def _race(stores: list[SqliteStore], candidates: int) -> int:
    """Every thread tries to admit every candidate on n1 (4 GPUs each); returns successful admits."""
    wins = []
    barrier = threading.Barrier(len(stores))

    def worker(store: SqliteStore) -> None:
        barrier.wait()
        for workload_id in range(1, candidates + 1):
            try:
                store.admit(workload_id, {}, {"n1": gpus(4)}, EventRecord("Admitted", "race", 0.0))
                wins.append(workload_id)
            except ConflictError:
                pass

    threads = [threading.Thread(target=worker, args=(s,)) for s in stores]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return len(wins)


@pytest.mark.parametrize(
    "connections", [pytest.param(1, id="threads-share-one-store"), pytest.param(4, id="four-connections")]
)
def test_racing_admits_never_book_twice(tmp_path: Path, connections: int) -> None:
    path = tmp_path / "state.db"
    setup = SqliteStore(path)
    setup.put_nodes([gpu_node("n1", gpus=8)])
    for i in range(6):
        setup.submit_workload(workload(f"w{i}"))
    stores = [setup] * 4 if connections == 1 else [setup, *(SqliteStore(path) for _ in range(3))]
    assert _race(stores, candidates=6) == 2
    assert setup.reserved_by_node() == {"n1": gpus(8, pods=2)}
    assert len(setup.list_workloads(states={WorkloadState.ADMITTED})) == 2
    assert len(setup.list_events()) == 2


@pytest.mark.parametrize(
    "connections", [pytest.param(1, id="threads-share-one-store"), pytest.param(4, id="four-connections")]
)
def test_racing_submissions_of_one_user_never_pass_the_quota(tmp_path: Path, connections: int) -> None:
    """Submissions arriving together (one group commit, or four writers) are counted one by one."""
    path = tmp_path / "state.db"
    setup = SqliteStore(path)
    stores = [setup] * 4 if connections == 1 else [setup, *(SqliteStore(path) for _ in range(3))]
    quota = Quota(workloads=10, pods=100, spec_bytes=10**6)
    stored: list[int] = []
    refused: list[QuotaExceededError] = []
    start = threading.Barrier(len(stores) * 4)

    def submit(store: SqliteStore, n: int) -> None:
        start.wait()
        for i in range(5):
            try:
                stored.append(store.submit_workload(workload(f"w{n}-{i}"), quota=quota).id)
            except QuotaExceededError as exc:
                refused.append(exc)

    threads = [threading.Thread(target=submit, args=(s, n)) for n, s in enumerate(stores * 4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(stored) == 10 and len(refused) == len(threads) * 5 - 10
    assert setup.pending_usage("alice").workloads == 10
    for store in {id(s): s for s in stores}.values():
        store.close()


def test_a_commit_by_another_process_moves_the_version(tmp_path: Path) -> None:
    with SqliteStore(tmp_path / "shared.db") as ours, SqliteStore(tmp_path / "shared.db") as theirs:
        before = ours.version()
        theirs.put_nodes([gpu_node("n9")])
        assert ours.version() != before
        assert [n.name for n in ours.get_nodes()] == ["n9"]


def test_submit_and_release_answer_the_rows_as_read_back(tmp_path: Path) -> None:
    """Submitting returns the row its INSERT wrote and a release the record it changed, without
    reading them again: both must be exactly what a later read gives."""
    with SqliteStore(tmp_path / "state.db") as store:
        store.put_nodes([gpu_node("n1")])
        first, second = store.submit_workload(workload("a"), event()), store.submit_workload(workload("b"))
        assert (first.sequence, second.sequence) == (1, 2)
        assert [store.get_workload(first.id), store.get_workload(second.id)] == [first, second]
        store.admit(second.id, {"pods": ["n1"]}, {"n1": gpus(4)}, event())
        for record in (first, second):
            cancelled = store.release(record.id, WorkloadState.CANCELLED, event())
            assert cancelled == store.get_workload(record.id)
            assert cancelled.state is WorkloadState.CANCELLED
            assert store.release(record.id, WorkloadState.CANCELLED, event()) == cancelled  # idempotent
        assert store.reserved_by_node() == {}
