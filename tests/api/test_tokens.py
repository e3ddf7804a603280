"""Tokens: kept as SHA-256 digests and compared in constant time; a tokens file others may read
or another user owns is refused by ``serve``; store files are created owner-only."""

from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path

import pytest
import typer
import yaml
from typer.testing import CliRunner

from toposched.api import AuthConfig, generate_tokens, require_private
from toposched.cli.serve import serve_command
from toposched.model import SpecError
from toposched.store import SqliteStore

TOKEN = "a-long-enough-token-0123"


def test_a_hashed_entry_authenticates_and_only_digests_are_kept() -> None:
    digest = hashlib.sha256(TOKEN.encode()).hexdigest()
    auth = AuthConfig.from_mapping({"tokens": [{"sha256": digest, "user": "ann", "role": "admin"}]})
    user = auth.authenticate(TOKEN)
    assert user is not None and user.name == "ann" and user.is_admin
    assert auth.authenticate(TOKEN + "x") is None
    plain = AuthConfig.from_mapping({"tokens": [{"token": TOKEN, "user": "bo", "role": "user"}]})
    assert TOKEN not in repr(plain.entries)


def test_an_entry_needs_exactly_one_of_token_and_sha256() -> None:
    digest = hashlib.sha256(TOKEN.encode()).hexdigest()
    with pytest.raises(SpecError, match="exactly one"):
        AuthConfig.from_mapping({"tokens": [{"token": TOKEN, "sha256": digest, "user": "a", "role": "user"}]})


def test_generated_files_hold_digests_only() -> None:
    content, fresh = generate_tokens()
    text = yaml.safe_dump(content)
    assert all(token not in text for _, token in fresh)
    auth = AuthConfig.from_mapping(content)
    assert [auth.authenticate(token) for _, token in fresh] == [user for user, _ in fresh]


def write(path: Path, mode: int) -> Path:
    path.write_text(yaml.safe_dump({"tokens": [{"token": TOKEN, "user": "a", "role": "admin"}]}))
    path.chmod(mode)
    return path


def test_a_tokens_file_others_may_read_is_refused(tmp_path: Path) -> None:
    with pytest.raises(SpecError, match="chmod 600"):
        require_private(write(tmp_path / "t.yaml", 0o644))
    require_private(write(tmp_path / "ok.yaml", 0o600))


@pytest.mark.skipif(not hasattr(os, "getuid") or os.getuid() != 0, reason="chown needs root")
def test_a_tokens_file_of_another_user_is_refused(tmp_path: Path) -> None:
    path = write(tmp_path / "t.yaml", 0o600)
    os.chown(path, 65534, -1)
    with pytest.raises(SpecError, match="owned by another user"):
        require_private(path)


def test_serve_refuses_a_planted_tokens_file_beside_the_database(tmp_path: Path) -> None:
    db = tmp_path / "toposched.db"
    write(tmp_path / "toposched.db.tokens.yaml", 0o666)
    app = typer.Typer()
    app.command()(serve_command)
    result = CliRunner().invoke(app, ["--db", str(db)])
    assert result.exit_code == 2, result.output
    assert "chmod 600" in result.output
    assert not db.exists()  # refused before anything was opened


def test_store_files_are_created_owner_only(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "s.db")
    store.put_nodes([])
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == ["s.db", "s.db-shm", "s.db-wal"]
    assert {stat.S_IMODE(p.stat().st_mode) for p in tmp_path.iterdir()} == {0o600}
    store.close()


def test_file_entries_are_named_by_their_name_or_their_place() -> None:
    auth = AuthConfig.from_mapping(
        {
            "tokens": [
                {"token": TOKEN, "user": "a", "role": "admin"},
                {"token": TOKEN + "-2", "user": "b", "role": "user", "name": "b-laptop"},
            ]
        }
    )
    assert auth.entry_names == ("tokens[0]", "b-laptop")


def test_two_file_entries_of_one_name_are_refused() -> None:
    entries = [{"token": TOKEN + str(i), "user": "a", "role": "user", "name": "same"} for i in range(2)]
    with pytest.raises(SpecError, match=r"tokens\.tokens\[1\]\.name: 'same' names tokens\[0\] too"):
        AuthConfig.from_mapping({"tokens": entries})
