"""One mapping from the error tree to HTTP: every error is JSON with an ``error`` code.

``SpecError`` → 422 ``{"error": "invalid", "problems": [{path, message, hint}]}`` (the problems
``SpecError.reported`` shows: the first few, each field bounded); ``NotFoundError``
→ 404; ``ConflictError`` → 409; ``PermissionDeniedError`` → 403; ``LimitError`` → 429 (with
``Retry-After`` when it says when); ``StoreError`` → 503; no or unknown token → 401. Malformed
request bodies are reported like spec errors, with their field paths.
Anything else is a bug: ``CatchAllMiddleware`` logs its traceback once and answers a JSON 500
that carries no server detail.
"""

from __future__ import annotations

import logging
import math
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from toposched.api.auth import UnauthenticatedError, problems_from_validation
from toposched.model import (
    ConflictError,
    LimitError,
    NotFoundError,
    PermissionDeniedError,
    Problem,
    SpecError,
    StoreError,
    ToposchedError,
)

log = logging.getLogger("toposched.api")


def problem_json(problem: Problem) -> dict[str, str]:
    return {"path": problem.path, "message": problem.message, "hint": problem.hint}


def error_response(exc: ToposchedError) -> JSONResponse:
    """The HTTP answer for one error of the tree."""
    if isinstance(exc, SpecError):
        return JSONResponse(
            {"error": "invalid", "problems": [problem_json(p) for p in exc.reported]}, status_code=422
        )
    if isinstance(exc, NotFoundError):
        body: dict[str, Any] = {"error": "not_found", "message": str(exc), "kind": exc.kind, "name": exc.name}
        return JSONResponse(body, status_code=404)
    if isinstance(exc, ConflictError):
        return JSONResponse({"error": "conflict", "message": str(exc)}, status_code=409)
    if isinstance(exc, PermissionDeniedError):
        return JSONResponse({"error": "forbidden", "message": str(exc)}, status_code=403)
    if isinstance(exc, LimitError):
        headers = {} if exc.retry_after is None else {"Retry-After": str(max(1, math.ceil(exc.retry_after)))}
        body = {"error": exc.code, "message": str(exc), "limit": exc.limit}
        return JSONResponse(body, status_code=429, headers=headers)
    if isinstance(exc, StoreError):
        log.error("store failure: %s", exc)
        return JSONResponse(
            {"error": "unavailable", "message": "the store is unavailable; retry the request"},
            status_code=503,
            headers={"Retry-After": "1"},
        )
    return JSONResponse({"error": "error", "message": str(exc)}, status_code=400)


async def _toposched(_: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, ToposchedError)
    return error_response(exc)


async def _unauthenticated(_: Request, exc: Exception) -> JSONResponse:
    return JSONResponse(
        {"error": "unauthorized", "message": str(exc), "hint": "send Authorization: Bearer <token>"},
        status_code=401,
        headers={"WWW-Authenticate": "Bearer"},
    )


async def _validation(_: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    problems = problems_from_validation(list(exc.errors()))
    return error_response(SpecError(problems))


async def _http(_: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, HTTPException)
    codes = {404: "not_found", 405: "method_not_allowed", 413: "too_large"}
    return JSONResponse(
        {"error": codes.get(exc.status_code, "http_error"), "message": str(exc.detail)},
        status_code=exc.status_code,
        headers=exc.headers,
    )


class CatchAllMiddleware:
    """Turns an exception no handler took into a JSON 500 without a traceback in the body; the
    traceback is logged here, once (the server never sees the exception)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def tracked(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, receive, tracked)
        except Exception:
            log.exception("internal error on %s %s", scope.get("method"), scope.get("path"))
            if started:
                return  # the answer is half sent: the server closes the connection
            body = {"error": "internal", "message": "internal server error; it was logged on the server"}
            await JSONResponse(body, status_code=500)(scope, receive, send)


def install_error_handlers(app: FastAPI) -> None:
    """Register the handlers above on ``app`` (the catch-all goes on with the middlewares)."""
    app.add_exception_handler(ToposchedError, _toposched)
    app.add_exception_handler(UnauthenticatedError, _unauthenticated)
    app.add_exception_handler(RequestValidationError, _validation)
    app.add_exception_handler(HTTPException, _http)
