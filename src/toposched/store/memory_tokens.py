"""The API tokens of ``MemoryStore``."""

from __future__ import annotations

import threading
from collections.abc import Callable
from contextlib import AbstractContextManager

from toposched.model import ConflictError, NotFoundError
from toposched.store.records import TokenRecord


class MemoryTokens:
    """The token methods of the ``Store`` protocol, over ``MemoryStore``'s state and lock."""

    _lock: threading.RLock
    _changing: Callable[[], AbstractContextManager[None]]
    _tokens: dict[str, TokenRecord]

    def add_token(self, token: TokenRecord) -> None:
        """Store a new token; ConflictError when its name or digest is taken."""
        with self._changing():
            if token.name in self._tokens:
                raise ConflictError(
                    f"a token named {token.name!r} exists; revoke it first or pick another name"
                )
            if any(t.sha256 == token.sha256 for t in self._tokens.values()):
                raise ConflictError("a stored token has the same secret; make a new one")
            self._tokens[token.name] = token

    def list_tokens(self) -> list[TokenRecord]:
        """Every stored token, sorted by name."""
        with self._lock:
            return [self._tokens[name] for name in sorted(self._tokens)]

    def delete_token(self, name: str) -> TokenRecord:
        """Delete a token by name and return it; NotFoundError when there is none."""
        with self._changing():
            if name not in self._tokens:
                raise NotFoundError("token", name, "toposched token list shows the tokens")
            return self._tokens.pop(name)
