"""``Offload``: a small dedicated thread pool for the blocking calls of the hot ``async`` routes,
and ``json_response``, which encodes a route's answer once.

The hot routes (submit, read, cancel, list nodes) are ``async`` and hand only their blocking part
(compiling a spec, a store commit) to this pool. FastAPI's sync routes instead take three or four
hops through anyio's 40-thread pool per request (dependencies, the handler, the response
serialisation), and with the GIL each hop can wait milliseconds behind busy threads.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
from collections.abc import Callable
from concurrent.futures import Future, InvalidStateError, ThreadPoolExecutor
from typing import Any, ParamSpec, TypeVar

from fastapi import Response

P = ParamSpec("P")
T = TypeVar("T")
R = TypeVar("R")


def _guarded(fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
    """``fn``'s result; a StopIteration escaping it cannot travel through an asyncio future (the
    request would never be answered), so it becomes a RuntimeError, which the API reports."""
    try:
        return fn(*args, **kwargs)
    except StopIteration as exc:
        raise RuntimeError(f"{fn!r} raised StopIteration") from exc


def _fulfil(out: Future[R], fn: Callable[[T], R], argument: T) -> None:
    """Run ``fn(argument)`` and settle ``out`` with its result or exception."""
    try:
        result = _guarded(fn, argument)
    except BaseException as exc:  # handed to the awaiting request, like ``run`` does
        _settle(out, error=exc)
        return
    _settle(out, result=result)


def _settle(out: Future[R], *, result: R | None = None, error: BaseException | None = None) -> None:
    """Finish ``out`` unless it was cancelled (its awaiter gave up)."""
    with contextlib.suppress(InvalidStateError):
        if error is not None:
            out.set_exception(error)
        else:
            out.set_result(result)  # type: ignore[arg-type]  # R, set by the caller with error None


class Offload:
    """Runs blocking calls off the event loop. For CPU work a few threads suffice; more would
    only add GIL contention. The app keeps three: one for compiling submissions (the costliest
    work of a request), a large one where submissions wait for their group commit (sleeping,
    so its size costs no CPU), and one for everything else, so a cancel never queues behind a
    burst of submissions."""

    def __init__(self, name: str, workers: int = 4) -> None:
        self._name = name
        self._workers = workers
        self._pool: ThreadPoolExecutor | None = None  # started on first use, again after ``close``

    async def run(self, fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        """``fn(*args, **kwargs)`` on a pool thread; its exception is raised here."""
        return await asyncio.wrap_future(self.start(fn, *args, **kwargs))

    def start(self, fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> Future[T]:
        """``fn(*args, **kwargs)`` started on a pool thread. Called on the event loop thread."""
        return self._executor().submit(functools.partial(_guarded, fn, *args, **kwargs))

    def then(self, first: Future[T], fn: Callable[[T], R]) -> Future[R]:
        """``fn(first's result)`` on a pool thread as soon as ``first`` is done (its exception
        passes through instead), straight from ``first``'s thread: a hop back through the event
        loop in between would wait for the GIL there, up to a switch interval (5 ms) under load.
        Called on the event loop thread; ``fn`` does not run when the result was cancelled."""
        pool, out = self._executor(), Future[R]()

        def relay(done: Future[T]) -> None:
            error = done.exception()
            if error is not None:
                _settle(out, error=error)
            elif not out.cancelled():
                try:
                    pool.submit(_fulfil, out, fn, done.result())
                except RuntimeError as exc:  # the pool was shut down meanwhile
                    _settle(out, error=exc)

        first.add_done_callback(relay)
        return out

    def _executor(self) -> ThreadPoolExecutor:
        if self._pool is None:  # only the event loop thread gets here, so no race
            self._pool = ThreadPoolExecutor(max_workers=self._workers, thread_name_prefix=self._name)
        return self._pool

    def close(self) -> None:
        """Finish the running calls and stop the threads."""
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=True)


def json_response(body: Any, status_code: int = 200) -> Response:
    """``body`` (plain JSON values already) as a response, skipping FastAPI's re-validation and
    ``jsonable_encoder`` walk of the whole answer."""
    return Response(json_bytes(body), status_code=status_code, media_type="application/json")


def json_bytes(body: Any) -> bytes:
    """``body`` (plain JSON values) encoded as the API answers it."""
    return json.dumps(body, ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode("utf-8")
