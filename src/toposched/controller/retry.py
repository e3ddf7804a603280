"""Retries of API writes that met a conflict (409): bounded, with exponential backoff and full
jitter, and an injectable sleep and random source so tests neither wait nor depend on luck."""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar

from toposched.controller.kubeapi import ApiConflictError

T = TypeVar("T")


@dataclass(slots=True)
class Retry:
    """Call again after a conflict, at most ``attempts`` times in all; the n-th wait is uniform
    in [0, min(cap, base * 2**n)] seconds."""

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
                self.sleep(self.rng.uniform(0.0, min(self.cap, self.base * 2**attempt)))
        raise AssertionError("unreachable: the last attempt returns or raises")
