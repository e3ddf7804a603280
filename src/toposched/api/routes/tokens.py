"""API tokens (admin): make one (its secret is answered once), list them (never a secret), revoke
one (refused from the next request on). See ``api.keyring``."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path, Request
from pydantic import BaseModel, ConfigDict, Field

from toposched.api.auth import MAX_NAME, NAME_PATTERN, AdminUser, Role
from toposched.api.keyring import Keyring, token_json

router = APIRouter(prefix="/v1/tokens", tags=["tokens"])

# No pattern: a file token's name (``tokens[0]``) is answered 409 with what to do instead.
TokenName = Annotated[str, Path(min_length=1, max_length=MAX_NAME, description="The token's name")]


class TokenBody(BaseModel):
    """A token to make: its name (unique), the user it authenticates as, and that user's role."""

    model_config = ConfigDict(extra="forbid")
    name: str = Field(min_length=1, max_length=MAX_NAME, pattern=NAME_PATTERN)
    user: str = Field(min_length=1, max_length=MAX_NAME, pattern=NAME_PATTERN)
    role: Role = Role.USER


def _keyring(request: Request) -> Keyring:
    keyring: Keyring = request.app.state.auth
    return keyring


@router.get("")
def list_tokens(_: AdminUser, request: Request) -> list[dict[str, Any]]:
    """Every token the service accepts: name, user, role, source (``file``: the tokens file
    ``serve`` read; ``store``: made with POST /v1/tokens) and, for stored ones, when and by whom."""
    return _keyring(request).listing()


@router.post("", status_code=201)
def create_token(body: TokenBody, admin: AdminUser, request: Request) -> dict[str, Any]:
    """Make a token; ``token`` in the answer is its secret, shown this once (only its SHA-256
    is kept). It is accepted at once."""
    record, secret = _keyring(request).create(body.name, body.user, body.role, by=admin.name)
    return {**token_json(record), "token": secret}


@router.delete("/{name}")
def revoke_token(name: TokenName, _: AdminUser, request: Request) -> dict[str, Any]:
    """Revoke a stored token: refused (401) from the next request on. A token of the tokens
    file is refused here (409): remove its entry from the file and restart."""
    return token_json(_keyring(request).revoke(name))
