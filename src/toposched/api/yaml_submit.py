"""``POST /v1/workloads`` with the job file itself as the body.

A body sent as ``application/yaml`` (or ``application/x-yaml``, ``text/yaml``) is the workload
spec, YAML or JSON text, exactly as ``kubectl apply -f`` would read it; ``priority``, ``topology``
and ``kind`` come from the query string. ``YamlSubmissions`` reads the body within the same size
limit as any request, turns it into the JSON envelope (``{"spec": "<text>", ...}``) and hands that
to the app, so both forms go through one validation and one submission path (the hot route or
the FastAPI route) and answer alike. A body of another content type (curl's default form type,
``text/plain``) is refused with the content types that work, instead of a schema error about a
dictionary. Requests without a valid token pass unchanged, so the app refuses them (401) as any.
"""

from __future__ import annotations

import json
import re
from typing import Any, Final
from urllib.parse import parse_qsl

from starlette.types import ASGIApp, Receive, Scope, Send

from toposched.api.auth import Authenticator, UnauthenticatedError, bearer_user
from toposched.api.errors import CatchAllMiddleware, error_response
from toposched.api.limits import BODY_BOUNDED, BodyLimitMiddleware, read_body, replay
from toposched.model import Problem, SpecError

WORKLOADS: Final = "/v1/workloads"
YAML_TYPES: Final = frozenset({"application/yaml", "application/x-yaml", "text/yaml"})
QUERY_FIELDS: Final = ("priority", "topology", "kind", "pool")
_INTEGER = re.compile(r"[+-]?[0-9]{1,19}")
_SEND_AS: Final = (
    "send the job file with Content-Type: application/yaml (curl -H 'Content-Type: application/yaml' "
    '--data-binary @job.yaml), or {"spec": "<its text>"} as application/json'
)


def media_type(scope: Scope) -> str | None:
    """The request's content type without parameters, lower case; None when it has none."""
    for key, value in scope["headers"]:
        if key == b"content-type":
            return str(value.decode("latin-1")).split(";")[0].strip().lower()
    return None


class YamlSubmissions:
    """Submissions whose body is the job file itself, turned into the JSON envelope for ``app``."""

    def __init__(self, app: ASGIApp, auth: Authenticator, *, max_body_bytes: int) -> None:
        self.app = app
        self.auth = auth
        self._guarded = CatchAllMiddleware(BodyLimitMiddleware(self._convert, max_bytes=max_body_bytes))

    @staticmethod
    def takes(scope: Scope) -> bool:
        """A ``POST /v1/workloads`` whose content type is given and is not JSON."""
        if scope["type"] != "http" or scope["method"] != "POST" or scope["path"] != WORKLOADS:
            return False
        kind = media_type(scope)
        return kind is not None and kind != "application/json"

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if not self._authenticated(scope):
            await self.app(scope, receive, send)
            return
        await self._guarded(scope, receive, send)

    def _authenticated(self, scope: Scope) -> bool:
        header = next((v.decode("latin-1") for k, v in scope["headers"] if k == b"authorization"), "")
        try:
            bearer_user(self.auth, header)
        except UnauthenticatedError:
            return False
        return True

    async def _convert(self, scope: Scope, receive: Receive, send: Send) -> None:
        body = await read_body(receive)
        if body is None:
            return  # the client left before its body arrived
        try:
            envelope = submit_envelope(media_type(scope), body, scope.get("query_string", b""))
        except SpecError as exc:
            await error_response(exc)(scope, receive, send)
            return
        encoded = json.dumps(envelope).encode("utf-8")
        headers = [(k, v) for k, v in scope["headers"] if k not in (b"content-type", b"content-length")]
        headers += [(b"content-type", b"application/json"), (b"content-length", str(len(encoded)).encode())]
        # The raw body was bounded above; the envelope (a little longer, escaped) is not bounded again.
        inner = {**scope, "headers": headers, "query_string": b"", BODY_BOUNDED: True}
        await self.app(inner, replay(encoded, receive), send)


def submit_envelope(kind: str | None, body: bytes, query: bytes) -> dict[str, Any]:
    """The JSON envelope for a job file sent as the body; a ``SpecError`` naming the content
    type, the body or the query parameter at fault."""
    if kind not in YAML_TYPES:
        raise SpecError([Problem("Content-Type", f"{kind!r} is not accepted here", _SEND_AS)])
    try:
        text = body.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError:
        raise SpecError(
            [Problem("body", "is not UTF-8 text", "send the job file (YAML or JSON) as UTF-8")]
        ) from None
    if not text.strip():
        raise SpecError([Problem("body", "is empty", _SEND_AS)])
    envelope: dict[str, Any] = {"spec": text}
    seen: set[str] = set()
    for name, value in parse_qsl(query.decode("latin-1"), keep_blank_values=True):
        if name not in QUERY_FIELDS:
            raise SpecError(
                [Problem(name, "is not a parameter of a submission", f"use {', '.join(QUERY_FIELDS)}")]
            )
        if name in seen:
            raise SpecError([Problem(name, "is given twice", "give it once")])
        seen.add(name)
        if name == "priority":
            if not _INTEGER.fullmatch(value):
                raise SpecError(
                    [Problem(name, f"{value!r} is not an integer", "give one, e.g. ?priority=10")]
                )
            envelope[name] = int(value)
        else:
            envelope[name] = value
    return envelope
