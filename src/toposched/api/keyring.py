"""``Keyring``: every token the service accepts, and the tokens admins make and revoke.

Two sources: the tokens file ``serve`` read at start (``AuthConfig``, fixed while it runs) and the
tokens made through ``POST /v1/tokens`` (``toposched token create``), kept in the store as the
SHA-256 of their secret, with a name, a user and a role. Creating or revoking one changes the
store and then the keyring's own digest map, which every request reads, so a revoked token is
refused from the next request on. The map is replaced, never changed in place, so readers need
no lock. A stored token is found by the digest of what is offered (a dict lookup: its timing
tells at most about the digest of a guess, not about a secret).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from typing import Any

from toposched.api.auth import AuthConfig, Role, User, new_secret, token_digest
from toposched.model import ConflictError
from toposched.store import Store, TokenRecord


class Keyring:
    """The file's tokens and the store's, as one ``Authenticator``."""

    def __init__(self, file: AuthConfig, store: Store, *, now: Callable[[], float] = time.time) -> None:
        self.file = file
        self._store = store
        self._now = now  # when a token was made: wall-clock seconds, as the API shows times
        self._lock = threading.Lock()  # one create or revoke at a time
        self._stored: Mapping[bytes, User] = {
            bytes.fromhex(t.sha256): User(t.user, Role(t.role)) for t in store.list_tokens()
        }

    def authenticate(self, token: str) -> User | None:
        """The user holding ``token``, from the file or the store."""
        return self.file.authenticate(token) or self._stored.get(token_digest(token))

    @property
    def stored(self) -> int:
        """How many tokens the store holds."""
        return len(self._stored)

    def create(self, name: str, user: str, role: Role, *, by: str) -> tuple[TokenRecord, str]:
        """Make a token, store its digest and accept it at once; the record and the secret,
        which is shown this once and kept nowhere."""
        self._check_not_in_file(name, "pick another name")
        secret = new_secret()
        digest = token_digest(secret)
        record = TokenRecord(name, user, role.value, digest.hex(), self._now(), by)
        with self._lock:
            self._store.add_token(record)
            self._stored = {**self._stored, digest: User(user, role)}
        return record, secret

    def revoke(self, name: str) -> TokenRecord:
        """Delete a stored token; it is refused from the next request on."""
        self._check_not_in_file(
            name, f"remove its entry from {self.file.path or 'the tokens file'} and restart"
        )
        with self._lock:
            record = self._store.delete_token(name)
            gone = bytes.fromhex(record.sha256)
            self._stored = {digest: user for digest, user in self._stored.items() if digest != gone}
        return record

    def listing(self) -> list[dict[str, Any]]:
        """Every token without its secret or digest: the file's, then the store's by name."""
        users = [user for _, user in self.file.entries]
        rows = [
            {
                "name": name,
                "user": user.name,
                "role": user.role.value,
                "source": "file",
                "createdAt": None,
                "createdBy": None,
            }
            for name, user in zip(self.file.entry_names, users, strict=True)
        ]
        rows += [token_json(t) for t in self._store.list_tokens()]
        return rows

    def _check_not_in_file(self, name: str, hint: str) -> None:
        if name in self.file.entry_names:
            where = self.file.path or "the tokens file"
            raise ConflictError(f"token {name!r} comes from {where}, which the service only reads; {hint}")


def token_json(record: TokenRecord) -> dict[str, Any]:
    """A stored token as the API shows it: never its secret, nor its digest."""
    return {
        "name": record.name,
        "user": record.user,
        "role": record.role,
        "source": "store",
        "createdAt": record.created_at,
        "createdBy": record.created_by,
    }
