"""Bearer tokens from a YAML file, two roles (admin, user), and the ``current_user`` dependency.

File format (each entry gives the token itself or, better, its SHA-256 in hex)::

    tokens:
      - {sha256: "9f86d081884c7d65...", user: alice, role: admin}
      - {token: "s3cret-user-token", user: bob, role: user, name: bob-laptop}

An entry's ``name`` (default ``tokens[i]``, its place in the file) is how ``toposched token list``
shows it. Tokens admins make while the service runs are kept in the store (``api.keyring``).

Only digests are kept in memory; an offered token is hashed and compared in constant time. The
file holds credentials, so ``serve`` refuses one that others may read or that another user owns
(``require_private``).
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
import stat
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any, Protocol

from fastapi import Depends, Request
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from toposched.intake.parse import parse_documents, read_file
from toposched.model import PermissionDeniedError, Problem, SpecError

MIN_TOKEN_LENGTH = 16
NAME_PATTERN = r"^[A-Za-z0-9._@-]+$"  # of a user and of a token's name
MAX_NAME = 128


class Role(StrEnum):
    ADMIN = "admin"
    USER = "user"


@dataclass(frozen=True, slots=True)
class User:
    """The authenticated caller."""

    name: str
    role: Role

    @property
    def is_admin(self) -> bool:
        return self.role is Role.ADMIN


class UnauthenticatedError(Exception):
    """No bearer token, or one that matches nobody (HTTP 401)."""


class _TokenEntry(BaseModel):
    model_config = ConfigDict(extra="forbid")
    token: str | None = Field(default=None, min_length=MIN_TOKEN_LENGTH)
    sha256: str | None = Field(default=None, pattern=r"^[0-9a-fA-F]{64}$")
    user: str = Field(min_length=1, max_length=MAX_NAME, pattern=NAME_PATTERN)
    role: Role
    name: str | None = Field(default=None, min_length=1, max_length=MAX_NAME, pattern=NAME_PATTERN)

    @property
    def digest(self) -> bytes | None:
        if self.sha256 is not None:
            return bytes.fromhex(self.sha256)
        return None if self.token is None else token_digest(self.token)


def token_digest(token: str) -> bytes:
    """The SHA-256 of a token: what the tokens file may hold and what is kept in memory."""
    return hashlib.sha256(token.encode("utf-8")).digest()


class _TokenFile(BaseModel):
    model_config = ConfigDict(extra="forbid")
    tokens: list[_TokenEntry] = Field(min_length=1)


class Authenticator(Protocol):
    """Whatever tells the caller from a bearer token (``AuthConfig``, ``api.keyring.Keyring``)."""

    def authenticate(self, token: str) -> User | None: ...


@dataclass(frozen=True, slots=True)
class AuthConfig:
    """Who may call the API: (SHA-256 of the token, user) pairs with their role; ``names``
    (one per entry) and ``path`` (the file read, "" for none) say where each came from."""

    entries: tuple[tuple[bytes, User], ...]
    names: tuple[str, ...] = ()
    path: str = ""

    @classmethod
    def from_mapping(cls, raw: object, *, source: str = "tokens") -> AuthConfig:
        """Validate a parsed tokens file; every problem is reported with its field path."""
        try:
            parsed = _TokenFile.model_validate(raw)
        except ValidationError as exc:
            raise SpecError(problems_from_validation(exc.errors(), prefix=source)) from None
        seen: dict[bytes, int] = {}
        named: dict[str, int] = {}
        problems: list[Problem] = []
        for i, entry in enumerate(parsed.tokens):
            name = entry.name or f"tokens[{i}]"
            if name in named:
                problems.append(
                    Problem(
                        f"{source}.tokens[{i}].name",
                        f"{name!r} names tokens[{named[name]}] too",
                        "rename one",
                    )
                )
            named.setdefault(name, i)
            digest = entry.digest
            if digest is None or (entry.token is not None and entry.sha256 is not None):
                problems.append(
                    Problem(f"{source}.tokens[{i}]", "needs exactly one of token and sha256", "keep sha256")
                )
                continue
            if digest in seen:
                problems.append(
                    Problem(
                        f"{source}.tokens[{i}]",
                        f"the same token as tokens[{seen[digest]}]",
                        "give every user a different token",
                    )
                )
            seen.setdefault(digest, i)
        if problems:
            raise SpecError(problems)
        kept = [
            (digest, User(e.user, e.role), e.name or f"tokens[{i}]")
            for i, e in enumerate(parsed.tokens)
            if (digest := e.digest) is not None
        ]
        return cls(tuple((digest, user) for digest, user, _ in kept), tuple(name for _, _, name in kept))

    @classmethod
    def load(cls, path: str | Path) -> AuthConfig:
        """Read a tokens file (YAML or JSON)."""
        where = str(path)
        text = read_file(where, what="tokens file")
        documents = parse_documents(text, source=where)
        loaded = cls.from_mapping(documents[0] if len(documents) == 1 else None, source=where)
        return cls(loaded.entries, loaded.names, where)

    @property
    def entry_names(self) -> tuple[str, ...]:
        """One name per entry (``tokens[i]`` where none was given)."""
        given = self.names if len(self.names) == len(self.entries) else ()
        return given or tuple(f"tokens[{i}]" for i in range(len(self.entries)))

    def authenticate(self, token: str) -> User | None:
        """The user holding ``token``: its digest is compared with every entry in constant time."""
        found: User | None = None
        offered = token_digest(token)
        for known, user in self.entries:
            if hmac.compare_digest(known, offered) and found is None:
                found = user
        return found


def new_secret() -> str:
    """A fresh random token: ``tsk_`` and 32 URL-safe characters (192 bits). The prefix tells
    what it is to a secret scanner, and keeps it from starting with ``-`` (read as an option)."""
    return "tsk_" + secrets.token_urlsafe(24)


def generate_tokens(
    admin: str = "admin", user: str = "user"
) -> tuple[dict[str, Any], list[tuple[User, str]]]:
    """A fresh development tokens file holding only digests, and the random tokens themselves
    (one admin, one user) to show once."""
    fresh = [
        (User(admin, Role.ADMIN), new_secret()),
        (User(user, Role.USER), new_secret()),
    ]
    entries = [
        {"sha256": token_digest(token).hex(), "user": who.name, "role": who.role.value}
        for who, token in fresh
    ]
    return {"tokens": entries}, fresh


def require_private(path: str | Path) -> None:
    """Refuse a credentials file that another user owns or that others may read or write: a
    planted or leaked file must not grant access."""
    where = str(path)
    try:
        info = os.stat(path)
    except OSError as exc:
        raise SpecError([Problem(where, f"cannot read: {exc.strerror}", "pass an existing file")]) from None
    if hasattr(os, "getuid") and info.st_uid != os.getuid():
        raise SpecError(
            [
                Problem(
                    where,
                    "is owned by another user",
                    f"use a tokens file of your own (chown it to uid {os.getuid()})",
                )
            ]
        )
    if stat.S_IMODE(info.st_mode) & 0o077:
        raise SpecError(
            [
                Problem(
                    where,
                    f"may be read or written by others (mode {stat.S_IMODE(info.st_mode):o})",
                    f"chmod 600 {where}",
                )
            ]
        )


def problems_from_validation(errors: Sequence[Mapping[str, Any]], *, prefix: str = "") -> list[Problem]:
    """Pydantic errors as ``Problem`` entries with dotted field paths (``tokens[0].role``)."""
    problems = []
    for error in errors:
        path = prefix
        for part in error.get("loc", ()):
            if isinstance(part, int):
                path += f"[{part}]"
            else:
                path = f"{path}.{part}" if path else str(part)
        problems.append(Problem(path, str(error.get("msg", "invalid")), _hint(error)))
    return problems


def _hint(error: Mapping[str, Any]) -> str:
    kind = str(error.get("type", ""))
    if kind == "missing":
        return "add this field"
    if kind == "extra_forbidden":
        return "remove this field"
    if kind == "enum":
        return "use one of the listed values"
    return "fix the value"


async def current_user(request: Request) -> User:
    """FastAPI dependency: the caller named by the ``Authorization: Bearer`` header. ``async``
    because it never blocks: a sync dependency would cost every request a thread-pool hop."""
    auth: Authenticator = request.app.state.auth
    return bearer_user(auth, request.headers.get("authorization", ""))


def bearer_user(auth: Authenticator, header: str) -> User:
    """The user an ``Authorization`` header value names (UnauthenticatedError for none)."""
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise UnauthenticatedError("missing bearer token")
    user = auth.authenticate(token.strip())
    if user is None:
        raise UnauthenticatedError("unknown token")
    return user


async def admin_user(user: Annotated[User, Depends(current_user)]) -> User:
    """FastAPI dependency: the caller, who must be an admin."""
    if not user.is_admin:
        raise PermissionDeniedError(f"user {user.name!r} is not an admin; this request needs the admin role")
    return user


CurrentUser = Annotated[User, Depends(current_user)]
AdminUser = Annotated[User, Depends(admin_user)]


async def optional_user(request: Request) -> User | None:
    """FastAPI dependency: the caller, or None without an ``Authorization`` header (the web
    page's read-only skeleton); a wrong token is still refused."""
    if "authorization" not in request.headers:
        return None
    return await current_user(request)


MaybeUser = Annotated[User | None, Depends(optional_user)]
