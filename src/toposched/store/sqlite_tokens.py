"""The API tokens of ``SqliteStore`` (the ``tokens`` table): digests only, never a secret."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from contextlib import AbstractContextManager

from toposched.model import ConflictError, NotFoundError
from toposched.store.records import TokenRecord

_COLUMNS = "name, user, role, sha256, created_at, created_by"


class SqliteTokens:
    """The token methods of the ``Store`` protocol, over ``SqliteStore``'s transactions."""

    _tx: Callable[..., AbstractContextManager[sqlite3.Connection]]

    def add_token(self, token: TokenRecord) -> None:
        """Store a new token; ConflictError when its name or digest is taken."""
        with self._tx("storing a token", write=True) as db:
            if db.execute("SELECT 1 FROM tokens WHERE name = ?", (token.name,)).fetchone() is not None:
                raise ConflictError(
                    f"a token named {token.name!r} exists; revoke it first or pick another name"
                )
            if db.execute("SELECT 1 FROM tokens WHERE sha256 = ?", (token.sha256,)).fetchone() is not None:
                raise ConflictError("a stored token has the same secret; make a new one")
            db.execute(
                f"INSERT INTO tokens ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?)",
                (token.name, token.user, token.role, token.sha256, token.created_at, token.created_by),
            )

    def list_tokens(self) -> list[TokenRecord]:
        """Every stored token, sorted by name."""
        with self._tx("reading tokens") as db:
            rows = db.execute(f"SELECT {_COLUMNS} FROM tokens ORDER BY name").fetchall()
        return [TokenRecord(*row) for row in rows]

    def delete_token(self, name: str) -> TokenRecord:
        """Delete a token by name and return it; NotFoundError when there is none."""
        with self._tx("revoking a token", write=True) as db:
            row = db.execute(f"SELECT {_COLUMNS} FROM tokens WHERE name = ?", (name,)).fetchone()
            if row is None:
                raise NotFoundError("token", name, "toposched token list shows the tokens")
            db.execute("DELETE FROM tokens WHERE name = ?", (name,))
        return TokenRecord(*row)
