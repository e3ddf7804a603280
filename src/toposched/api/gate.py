"""``Gate``: how many requests of one costly kind may run at once, per user and in all.

A request beyond either bound is refused at once (``BusyError``: HTTP 429 with Retry-After)
rather than queued, so one user cannot fill the service with work, and a burst from many users
cannot queue up more than the pool that runs it can finish."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

from toposched.model import BusyError, Problem, SpecError


class Gate:
    """At most ``per_user`` requests of one user and ``total`` of all users at once."""

    def __init__(self, what: str, *, per_user: int, total: int, retry_after: float) -> None:
        if not 1 <= per_user <= total:
            raise SpecError(
                [Problem(f"{what} per user", f"{per_user} of {total} in all", "use 1 <= per user <= total")]
            )
        self.what = what
        self.per_user = per_user
        self.total = total
        self.retry_after = retry_after
        self._running: dict[str, int] = {}
        self._lock = threading.Lock()

    @contextmanager
    def enter(self, user: str) -> Iterator[None]:
        """Hold one place for ``user`` while the block runs; BusyError when none is free."""
        with self._lock:
            mine = self._running.get(user, 0)
            if mine >= self.per_user:
                raise BusyError(
                    f"{mine} {self.what} of yours already running (at most {self.per_user} at once); "
                    "retry when it has answered",
                    limit=f"{self.what} per user",
                    retry_after=self.retry_after,
                )
            if sum(self._running.values()) >= self.total:
                raise BusyError(
                    f"{self.total} {self.what} already running (the service's limit); retry shortly",
                    limit=f"{self.what} at once",
                    retry_after=self.retry_after,
                )
            self._running[user] = mine + 1
        try:
            yield
        finally:
            with self._lock:
                left = self._running[user] - 1
                if left:
                    self._running[user] = left
                else:
                    del self._running[user]
