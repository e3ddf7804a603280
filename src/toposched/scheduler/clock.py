"""Time for the scheduler, injected so tests control it.

``SystemClock`` is the only place in toposched that reads the system clock. It uses wall-clock
seconds (not a monotonic counter) because NotReady and taint times are persisted in the event log
and must stay meaningful across a restart.
"""

from __future__ import annotations

import time
from typing import Protocol


class Clock(Protocol):
    """A source of the current time in seconds."""

    def now(self) -> float: ...


class SystemClock:
    """Wall-clock time (seconds since the epoch)."""

    def now(self) -> float:
        """The current time."""
        return time.time()


class ManualClock:
    """A clock that moves only when told to (tests, simulations)."""

    def __init__(self, start: float = 0.0) -> None:
        self._now = float(start)

    def now(self) -> float:
        """The current (manual) time."""
        return self._now

    def advance(self, seconds: float) -> None:
        """Move time forward; moving it backwards is refused."""
        if seconds < 0:
            raise ValueError(f"a clock cannot go back in time (advance by {seconds})")
        self._now += seconds
