"""Request limits, and the ASGI middleware that refuses oversized bodies with 413."""

from __future__ import annotations

import json
from dataclasses import dataclass

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from toposched.model.limits import MAX_REQUEST_BODY_BYTES

# Scope key set on a request whose body was already read within the limit and rewritten
# (``api.yaml_submit``): the limit is not applied to the rewritten body again.
BODY_BOUNDED = "toposched.body_bounded"


@dataclass(frozen=True, slots=True)
class Limits:
    """Bounds on what one request may ask for."""

    max_body_bytes: int = MAX_REQUEST_BODY_BYTES  # a workload spec or a cluster dump chunk
    max_list: int = 1000  # events / workloads per page
    explanations_per_user: int = 1  # explanations one user may have running at once
    explanations_total: int = 2  # ... and all users together (the threads that run them)


def replay(body: bytes, receive: Receive) -> Receive:
    """A ``receive`` that gives the already-read body first, then whatever ``receive`` gives."""
    sent = False

    async def replayed() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replayed


class BodyLimitMiddleware:
    """Answers 413 when a request body exceeds ``max_bytes``.

    The body is read (up to the limit) before the app runs, so the check also covers chunked
    uploads without a Content-Length, and the app never sees a partial body.
    """

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get(BODY_BOUNDED):
            await self.app(scope, receive, send)
            return
        declared = _content_length(scope)
        if declared is not None and declared > self.max_bytes:
            await _too_large(send, self.max_bytes)
            return
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_bytes:
                await _too_large(send, self.max_bytes)
                return
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        await self.app(scope, replay(b"".join(chunks), receive), send)


async def read_body(receive: Receive) -> bytes | None:
    """The whole request body (``BodyLimitMiddleware`` has bounded it); None when the client
    disconnected first."""
    chunks: list[bytes] = []
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return None
        chunks.append(message.get("body", b""))
        if not message.get("more_body", False):
            return b"".join(chunks)


def _content_length(scope: Scope) -> int | None:
    for name, value in scope.get("headers", ()):
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None


async def _too_large(send: Send, max_bytes: int) -> None:
    payload = json.dumps(
        {
            "error": "too_large",
            "message": f"the request body exceeds {max_bytes} bytes",
            "hint": "send a smaller spec, or split a cluster dump into several imports",
        }
    ).encode("utf-8")
    await send(
        {
            "type": "http.response.start",
            "status": 413,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(payload)).encode()),
                (b"connection", b"close"),
            ],
        }
    )
    await send({"type": "http.response.body", "body": payload})
