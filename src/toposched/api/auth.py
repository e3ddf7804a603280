"""Bearer tokens from a YAML file, two roles (admin, user), and the ``current_user`` dependency.

File format (each entry gives the token itself or, better, its SHA-256 in hex)::

    tokens:
      - {sha256: "9f86d081884c7d65...", user: alice, role: admin}
      - {token: "s3cret-user-token", user: bob, role: user}

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
from typing import Annotated, Any

from fastapi import Depends, Request
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from toposched.frontends.parse import parse_documents, read_file
from toposched.model import PermissionDeniedError, Problem, SpecError

MIN_TOKEN_LENGTH = 16


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
    user: str = Field(min_length=1, max_length=128, pattern=r"^[A-Za-z0-9._@-]+$")
    role: Role

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


@dataclass(frozen=True, slots=True)
class AuthConfig:
    """Who may call the API: (SHA-256 of the token, user) pairs with their role."""

    entries: tuple[tuple[bytes, User], ...]

    @classmethod
    def from_mapping(cls, raw: object, *, source: str = "tokens") -> AuthConfig:
        """Validate a parsed tokens file; every problem is reported with its field path."""
        try:
            parsed = _TokenFile.model_validate(raw)
        except ValidationError as exc:
            raise SpecError(problems_from_validation(exc.errors(), prefix=source)) from None
        seen: dict[bytes, int] = {}
        problems: list[Problem] = []
        for i, entry in enumerate(parsed.tokens):
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
        return cls(tuple((e.digest, User(e.user, e.role)) for e in parsed.tokens if e.digest is not None))

    @classmethod
    def load(cls, path: str | Path) -> AuthConfig:
        """Read a tokens file (YAML or JSON)."""
        where = str(path)
        text = read_file(where, what="tokens file")
        documents = parse_documents(text, source=where)
        return cls.from_mapping(documents[0] if len(documents) == 1 else None, source=where)

    def authenticate(self, token: str) -> User | None:
        """The user holding ``token``: its digest is compared with every entry in constant time."""
        found: User | None = None
        offered = token_digest(token)
        for known, user in self.entries:
            if hmac.compare_digest(known, offered) and found is None:
                found = user
        return found


def generate_tokens(
    admin: str = "admin", user: str = "user"
) -> tuple[dict[str, Any], list[tuple[User, str]]]:
    """A fresh development tokens file holding only digests, and the random tokens themselves
    (one admin, one user) to show once."""
    fresh = [
        (User(admin, Role.ADMIN), secrets.token_urlsafe(24)),
        (User(user, Role.USER), secrets.token_urlsafe(24)),
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
    auth: AuthConfig = request.app.state.auth
    return bearer_user(auth, request.headers.get("authorization", ""))


def bearer_user(auth: AuthConfig, header: str) -> User:
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
