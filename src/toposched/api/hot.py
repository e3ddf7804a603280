"""``HotRoutes``: submit, read and cancel a workload (what every client calls most) as plain ASGI
handlers in front of the FastAPI app (``ServiceApp`` hands them their requests first), whose
routes declare the same paths and so document them in /openapi.json.

FastAPI's per-request stack (telemetry check, middlewares, routing, dependency injection, body
models) costs about as much CPU as the work itself. These handlers match the three routes directly, authenticate with the same
``bearer_user``, take the body and id through plain checks (``plain_submit``, ``plain_id``) that
give exactly what the FastAPI route would get, run the same ``WorkloadVerbs`` and map errors with
the same ``error_response``. A request they cannot take as plainly valid (no or an unknown
token, a body pydantic must judge, an id that is not a plain decimal) goes to the FastAPI route
unchanged, so every refusal of the request itself has one source. tests/api/test_hot_routes.py
checks that both ways answer alike.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable
from typing import Any

from starlette.responses import Response
from starlette.types import ASGIApp, Receive, Scope, Send

from toposched.api.auth import Authenticator, UnauthenticatedError, User, bearer_user
from toposched.api.bodies import plain_submit
from toposched.api.errors import CatchAllMiddleware, error_response
from toposched.api.limits import BodyLimitMiddleware, read_body, replay
from toposched.api.offload import json_response
from toposched.api.params import plain_id
from toposched.api.verbs import WorkloadVerbs
from toposched.model import ToposchedError

WORKLOADS = "/v1/workloads"
ONE_WORKLOAD = WORKLOADS + "/"


class HotRoutes:
    """POST /v1/workloads, GET and DELETE /v1/workloads/{id}, served directly. ``fallback`` is
    the FastAPI app's own stack; requests are bounded (``max_body_bytes``) and guarded against
    crashes by the same middlewares as there."""

    def __init__(
        self, verbs: WorkloadVerbs, auth: Authenticator, *, fallback: ASGIApp, max_body_bytes: int
    ) -> None:
        self.verbs = verbs
        self.auth = auth
        self.fallback = fallback
        self._guarded = CatchAllMiddleware(BodyLimitMiddleware(self._serve, max_bytes=max_body_bytes))

    @staticmethod
    def takes(scope: Scope) -> bool:
        """Whether the request is for one of the three routes (it may still go to ``fallback``)."""
        if scope["type"] != "http" or scope.get("root_path"):
            return False
        method, path = scope["method"], scope["path"]
        if method == "POST":
            return bool(path == WORKLOADS)
        if method == "GET" or method == "DELETE":
            return path.startswith(ONE_WORKLOAD) and "/" not in path[len(ONE_WORKLOAD) :]
        return False

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Serve a request ``takes``."""
        await self._guarded(scope, receive, send)

    async def _serve(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["method"] == "POST":
            await self._submit(scope, receive, send)
            return
        workload_id = plain_id(scope["path"][len(ONE_WORKLOAD) :])
        user = self._user(scope)
        if workload_id is None or user is None:
            await self.fallback(scope, receive, send)
            return
        verb = self.verbs.read if scope["method"] == "GET" else self.verbs.cancel
        await _answer(scope, receive, send, verb(user, workload_id))

    async def _submit(self, scope: Scope, receive: Receive, send: Send) -> None:
        body = await read_body(receive)
        if body is None:
            return  # the client left before its body arrived: nobody to answer
        user = self._user(scope)
        fields = plain_submit(_json_body(scope, body))
        if user is None or fields is None:
            await self.fallback(scope, replay(body, receive), send)
            return
        await _answer(scope, receive, send, self.verbs.submit(user.name, fields), 201)

    def _user(self, scope: Scope) -> User | None:
        """The caller, or None when the FastAPI route must refuse the request (401)."""
        try:
            return bearer_user(self.auth, _header(scope, b"authorization") or "")
        except UnauthenticatedError:
            return None


async def _answer(
    scope: Scope, receive: Receive, send: Send, verb: Awaitable[dict[str, Any]], status: int = 200
) -> None:
    """Send the verb's JSON, or the error it raised as the FastAPI app's handlers would."""
    response: Response
    try:
        response = json_response(await verb, status)
    except ToposchedError as exc:
        response = error_response(exc)
    await response(scope, receive, send)


def _header(scope: Scope, name: bytes) -> str | None:
    """The first value of header ``name`` (lower case, as servers pass them), like Starlette's."""
    for key, value in scope["headers"]:
        if key == name:
            text: str = value.decode("latin-1")
            return text
    return None


def _json_body(scope: Scope, body: bytes) -> object:
    """The body as FastAPI parses it, when its content type says JSON and it parses; None
    otherwise, FastAPI must judge it (without a content type, whether it is JSON depends on the
    FastAPI version: newer ones refuse it)."""
    content_type = _header(scope, b"content-type")
    if not body or content_type is None or content_type.split(";")[0].strip().lower() != "application/json":
        return None
    try:
        return json.loads(body)
    except (ValueError, RecursionError):
        return None
