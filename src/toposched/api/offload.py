"""``Offload``: a small dedicated thread pool for the blocking calls of the hot ``async`` routes,
and ``json_response``, which encodes a route's answer once.

The hot routes (submit, read, cancel, list nodes) are ``async`` and hand only their blocking part
(compiling a spec, a store commit) to this pool. FastAPI's sync routes instead take three or four
hops through anyio's 40-thread pool per request (dependencies, the handler, the response
serialisation), and with the GIL each hop can wait milliseconds behind busy threads.

A call is a plain job on a queue: the pool thread hands its outcome to the awaiting asyncio
future with one ``call_soon_threadsafe``. ``loop.run_in_executor`` costs the event loop about
four times as much CPU per call (a ``concurrent.futures.Future`` with its condition and locks,
then chaining it to an asyncio future).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import queue
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ParamSpec, TypeVar

from fastapi import Response

P = ParamSpec("P")
T = TypeVar("T")
R = TypeVar("R")


def _guarded(fn: Callable[[], T]) -> T:
    """``fn``'s result; a StopIteration escaping it cannot travel through an asyncio future (the
    request would never be answered), so it becomes a RuntimeError, which the API reports."""
    try:
        return fn()
    except StopIteration as exc:
        raise RuntimeError(f"{fn!r} raised StopIteration") from exc


@dataclass(frozen=True, slots=True)
class _Job:
    """``call`` on a pool thread, its outcome for ``waiter`` (a future of ``loop``); with
    ``then``, the result goes on to that pool and call instead."""

    call: Callable[[], Any]
    loop: asyncio.AbstractEventLoop
    waiter: asyncio.Future[Any]
    then: tuple[Offload, Callable[[Any], Any]] | None = None


class Offload:
    """Runs blocking calls off the event loop. For CPU work a few threads suffice; more would
    only add GIL contention. The app keeps three: one for compiling submissions (the costliest
    work of a request), a large one where submissions wait for their group commit (sleeping,
    so its size costs no CPU), and one for everything else, so a cancel never queues behind a
    burst of submissions."""

    def __init__(self, name: str, workers: int = 4) -> None:
        self._name = name
        self._workers = workers
        self._lock = threading.Lock()  # guards starting and stopping the threads
        self._jobs: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        self._threads: list[threading.Thread] = []  # started as needed, again after ``close``
        self._idle = threading.Semaphore(0)  # a count for each job a thread finished

    async def run(self, fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        """``fn(*args, **kwargs)`` on a pool thread; its exception is raised here."""
        loop = asyncio.get_running_loop()
        waiter: asyncio.Future[T] = loop.create_future()
        self._put(_Job(functools.partial(fn, *args, **kwargs), loop, waiter))
        return await waiter

    async def run_then(self, fn: Callable[[], T], after: Offload, then: Callable[[T], R]) -> R:
        """``then(fn())``: ``fn`` on a thread of this pool, then ``then`` on one of ``after``,
        handed over straight from the first thread: a hop back through the event loop in between
        would wait for the GIL there, up to a switch interval (5 ms) under load. An exception of
        either is raised here (``then`` does not run when ``fn`` failed)."""
        loop = asyncio.get_running_loop()
        waiter: asyncio.Future[R] = loop.create_future()
        self._put(_Job(fn, loop, waiter, (after, then)))
        return await waiter

    def open(self) -> None:
        """Start every thread now: a thread starting under load waits for the GIL before its
        starter goes on, so the app starts its pools before it serves the first burst."""
        with self._lock:
            while len(self._threads) < self._workers:
                self._start_thread()

    def close(self) -> None:
        """Finish the queued calls and stop the threads."""
        with self._lock:
            threads, self._threads = self._threads, []
            for _ in threads:
                self._jobs.put(None)  # after the queued jobs: each thread stops at one
        for thread in threads:
            thread.join()
        with self._lock:
            self._idle = threading.Semaphore(0)  # the stopped threads' counts

    def _put(self, job: _Job) -> None:
        """Queue ``job``; a new thread starts only when none is idle and the pool is not full."""
        if len(self._threads) < self._workers and not self._idle.acquire(blocking=False):
            with self._lock:
                if len(self._threads) < self._workers:
                    self._start_thread()
        self._jobs.put(job)

    def _start_thread(self) -> None:
        thread = threading.Thread(target=self._work, name=f"{self._name}_{len(self._threads)}", daemon=True)
        thread.start()
        self._threads.append(thread)

    def _work(self) -> None:
        while (job := self._jobs.get()) is not None:
            self._run(job)
            self._idle.release()

    def _run(self, job: _Job) -> None:
        if job.waiter.cancelled():
            return  # its request gave up before the call started
        try:
            result = _guarded(job.call)
        except BaseException as exc:  # raised in the awaiting request, which reports it
            _hand_back(job, _fail, exc)
            return
        if job.then is None:
            _hand_back(job, _succeed, result)
        else:
            after, then = job.then
            after._put(_Job(functools.partial(then, result), job.loop, job.waiter))


def _hand_back(job: _Job, settle: Callable[[asyncio.Future[Any], Any], None], outcome: object) -> None:
    with contextlib.suppress(RuntimeError):  # the loop closed meanwhile: nobody waits for the answer
        job.loop.call_soon_threadsafe(settle, job.waiter, outcome)


def _succeed(waiter: asyncio.Future[Any], result: object) -> None:
    if not waiter.cancelled():
        waiter.set_result(result)


def _fail(waiter: asyncio.Future[Any], error: BaseException) -> None:
    if not waiter.cancelled():
        waiter.set_exception(error)


def json_response(body: Any, status_code: int = 200) -> Response:
    """``body`` (plain JSON values already) as a response, skipping FastAPI's re-validation and
    ``jsonable_encoder`` walk of the whole answer."""
    return Response(json_bytes(body), status_code=status_code, media_type="application/json")


def json_bytes(body: Any) -> bytes:
    """``body`` (plain JSON values) encoded as the API answers it."""
    return json.dumps(body, ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode("utf-8")
