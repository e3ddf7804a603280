"""Waiting before calling again: ``Retry`` repeats a write that met a conflict (409), bounded;
``Backoff`` spaces out the calls of something that keeps failing (a broken watch), as client-go's
reflector does (0.8 s doubling to 30 s). Both wait an exponentially growing time with full jitter
(``jittered``), from an injectable random source so tests neither wait nor depend on luck."""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar

from toposched.controller.kubeapi import ApiConflictError

T = TypeVar("T")


def jittered(attempt: int, base: float, cap: float, rng: random.Random) -> float:
    """The wait after the ``attempt``-th failure in a row (0 first): uniform in
    [0, min(cap, base * 2**attempt)]."""
    return rng.uniform(0.0, min(cap, base * 2.0 ** min(attempt, 64)))


@dataclass(slots=True)
class Retry:
    """Call again after a conflict, at most ``attempts`` times in all. Only for writes whose retry
    is the same request made sense of again (a server-side apply); a write conditional on what was
    read must be decided again from a fresh read instead."""

    attempts: int = 5
    base: float = 0.05
    cap: float = 2.0
    sleep: Callable[[float], None] = time.sleep
    rng: random.Random = field(default_factory=random.Random)
    conflicts: int = 0  # conflicts met so far (metrics read it)

    def __call__(self, call: Callable[[], T]) -> T:
        for attempt in range(self.attempts):
            try:
                return call()
            except ApiConflictError:
                self.conflicts += 1
                if attempt == self.attempts - 1:
                    raise
                self.sleep(jittered(attempt, self.base, self.cap, self.rng))
        raise AssertionError("unreachable: the last attempt returns or raises")


@dataclass(slots=True)
class Backoff:
    """When a call that failed ``failures`` times in a row may be made again (times from the
    caller's clock). Half the wait is fixed and half jittered, so a broken call is never hammered."""

    base: float = 0.8
    cap: float = 30.0
    rng: random.Random = field(default_factory=random.Random)
    failures: int = 0
    retry_at: float = 0.0

    def ready(self, now: float) -> bool:
        return now >= self.retry_at

    def failed(self, now: float) -> float:
        """Note a failure; returns the seconds until the next attempt."""
        ceiling = min(self.cap, self.base * 2.0 ** min(self.failures, 64))
        wait = ceiling / 2 + jittered(self.failures, self.base / 2, self.cap / 2, self.rng)
        self.failures += 1
        self.retry_at = now + wait
        return wait

    def succeeded(self) -> None:
        self.failures, self.retry_at = 0, 0.0
