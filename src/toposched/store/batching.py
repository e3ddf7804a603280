"""``GroupCommit``: callers that arrive while a commit runs are committed together by the next one.

Each call blocks until the batch holding its item committed (or failed) and returns its own
result, so an acknowledgement still means "durable". Waiting callers sleep on their own event:
none queues on a lock just to learn that someone else already committed its item.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Generic, TypeVar

from toposched.model import StoreError

T = TypeVar("T")
R = TypeVar("R")


class _Waiting(Generic[T, R]):
    __slots__ = ("done", "error", "item", "result", "wake")

    def __init__(self, item: T) -> None:
        self.item = item
        self.result: R | None = None
        self.error: BaseException | None = None
        self.done = False
        self.wake = threading.Event()  # set when done, or when it is this caller's turn to commit


class GroupCommit(Generic[T, R]):
    """Batches calls to ``commit``, which stores a batch in one transaction and returns one result
    per item, in order. When a batch fails, its items are retried one by one, so each caller gets
    its own outcome."""

    def __init__(self, commit: Callable[[Sequence[T]], Sequence[R]]) -> None:
        self._commit = commit
        self._lock = threading.Lock()
        self._queue: list[_Waiting[T, R]] = []
        self._committing = False  # a caller is committing a batch; the others wait for their turn

    def __call__(self, item: T) -> R:
        """Commit ``item`` (with whatever else is waiting) and return its result."""
        waiting: _Waiting[T, R] = _Waiting(item)
        with self._lock:
            self._queue.append(waiting)
            leading = not self._committing
            self._committing = True
        if not leading:
            waiting.wake.wait()
        if not waiting.done:
            self._commit_queued()
        if waiting.error is not None:
            raise waiting.error
        return waiting.result  # type: ignore[return-value]  # done without an error: set by _run

    def _commit_queued(self) -> None:
        with self._lock:
            batch, self._queue = self._queue, []
        try:
            self._run(batch)
        finally:
            for waiting in batch:
                if not waiting.done:  # never leave a caller without an outcome
                    waiting.error, waiting.done = StoreError("the commit was interrupted"), True
                waiting.wake.set()
            with self._lock:
                if self._queue:
                    self._queue[0].wake.set()  # its caller commits the next batch
                else:
                    self._committing = False

    def _run(self, batch: list[_Waiting[T, R]]) -> None:
        try:
            results = self._commit([w.item for w in batch])
        except Exception as exc:
            if len(batch) == 1:
                batch[0].error, batch[0].done = exc, True
            else:
                for waiting in batch:
                    self._run([waiting])
            return
        for waiting, result in zip(batch, results, strict=True):
            waiting.result, waiting.done = result, True
