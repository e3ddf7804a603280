"""API tokens in both stores: added by name with their digest only, listed by name, deleted and
returned; a taken name or digest is a conflict, an unknown name not found. The SQLite file keeps
them across reopening, and a file of schema version 6 gains the table when opened."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from toposched.model import ConflictError, NotFoundError, StoreError
from toposched.store import SqliteStore, Store, TokenRecord
from toposched.store.migrations import migrate

CI = TokenRecord("ci-bot", "ci", "user", "ab" * 32, 10.0, "root")
OPS = TokenRecord("ops", "ops", "admin", "cd" * 32, 11.0, "root")


def test_add_list_delete(store: Store) -> None:
    store.add_token(OPS)
    store.add_token(CI)

    assert store.list_tokens() == [CI, OPS]
    assert store.delete_token("ci-bot") == CI
    assert store.list_tokens() == [OPS]


@pytest.mark.parametrize(
    "clash",
    [TokenRecord("ci-bot", "x", "user", "ef" * 32), TokenRecord("other", "x", "user", CI.sha256)],
    ids=["same-name", "same-digest"],
)
def test_a_taken_name_or_digest_is_a_conflict_and_changes_nothing(store: Store, clash: TokenRecord) -> None:
    store.add_token(CI)

    with pytest.raises(ConflictError):
        store.add_token(clash)

    assert store.list_tokens() == [CI]


def test_deleting_an_unknown_token_is_not_found(store: Store) -> None:
    with pytest.raises(NotFoundError, match="token 'nope'"):
        store.delete_token("nope")


def test_tokens_outlive_reopening(tmp_path: Path) -> None:
    with SqliteStore(tmp_path / "state.db") as store:
        store.add_token(CI)
    with SqliteStore(tmp_path / "state.db") as store:
        assert store.list_tokens() == [CI]


def test_a_version_6_file_gains_the_tokens_table(tmp_path: Path) -> None:
    path = tmp_path / "state.db"
    conn = sqlite3.connect(path, isolation_level=None)
    migrate(conn, target=6)
    conn.close()

    with SqliteStore(path) as store:
        assert store.migrated_from == 6
        store.add_token(CI)
        assert store.list_tokens() == [CI]


def test_a_role_other_than_admin_or_user_is_refused_by_the_file(tmp_path: Path) -> None:
    with SqliteStore(tmp_path / "state.db") as store, pytest.raises(StoreError, match="CHECK constraint"):
        store.add_token(TokenRecord("x", "x", "root", "01" * 32))
