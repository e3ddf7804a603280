"""Bearer tokens from a YAML file, two roles (admin, user), and the ``current_user`` dependency.

File format::

    tokens:
      - {token: "s3cret-admin", user: alice, role: admin}
      - {token: "s3cret-user", user: bob, role: user}
"""

from __future__ import annotations

import hmac
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import yaml
from fastapi import Depends, Request
from pydantic import BaseModel, ConfigDict, Field, ValidationError

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
    token: str = Field(min_length=MIN_TOKEN_LENGTH)
    user: str = Field(min_length=1, max_length=128, pattern=r"^[A-Za-z0-9._@-]+$")
    role: Role


class _TokenFile(BaseModel):
    model_config = ConfigDict(extra="forbid")
    tokens: list[_TokenEntry] = Field(min_length=1)


@dataclass(frozen=True, slots=True)
class AuthConfig:
    """Who may call the API: (token, user) pairs with their role."""

    entries: tuple[tuple[str, User], ...]

    @classmethod
    def from_mapping(cls, raw: object, *, source: str = "tokens") -> AuthConfig:
        """Validate a parsed tokens file; every problem is reported with its field path."""
        try:
            parsed = _TokenFile.model_validate(raw)
        except ValidationError as exc:
            raise SpecError(problems_from_validation(exc.errors(), prefix=source)) from None
        seen: dict[str, int] = {}
        problems: list[Problem] = []
        for i, entry in enumerate(parsed.tokens):
            if entry.token in seen:
                problems.append(
                    Problem(
                        f"{source}.tokens[{i}].token",
                        f"the same token as tokens[{seen[entry.token]}]",
                        "give every user a different token",
                    )
                )
            seen.setdefault(entry.token, i)
        if problems:
            raise SpecError(problems)
        return cls(tuple((e.token, User(e.user, e.role)) for e in parsed.tokens))

    @classmethod
    def load(cls, path: str | Path) -> AuthConfig:
        """Read a tokens file (YAML or JSON)."""
        where = str(path)
        try:
            text = Path(path).read_text(encoding="utf-8")
        except OSError as exc:
            raise SpecError(
                [Problem(where, f"cannot read: {exc.strerror}", "pass an existing file")]
            ) from None
        try:
            raw = yaml.safe_load(text)
        except yaml.YAMLError as exc:
            raise SpecError([Problem(where, f"not valid YAML: {exc}", "check the indentation")]) from None
        return cls.from_mapping(raw, source=where)

    def authenticate(self, token: str) -> User | None:
        """The user holding ``token``; compares against every entry in constant time."""
        found: User | None = None
        offered = token.encode("utf-8")
        for known, user in self.entries:
            if hmac.compare_digest(known.encode("utf-8"), offered) and found is None:
                found = user
        return found


def generate_tokens(admin: str = "admin", user: str = "user") -> dict[str, Any]:
    """A fresh development tokens file: one admin and one user with random tokens."""
    return {
        "tokens": [
            {"token": secrets.token_urlsafe(24), "user": admin, "role": Role.ADMIN.value},
            {"token": secrets.token_urlsafe(24), "user": user, "role": Role.USER.value},
        ]
    }


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
    header = request.headers.get("authorization", "")
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
