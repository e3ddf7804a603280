"""Time for the scheduler, injected so tests control it.

``SystemClock`` and ``CpuClock`` are the only places in toposched that read the system's clocks.
``SystemClock`` uses wall-clock seconds (not a monotonic counter) because NotReady and taint times
are persisted in the event log and must stay meaningful across a restart. ``CpuClock`` bounds the
engine's searches (``Scheduler(search_clock=...)``): the CPU time of the thread that searches,
which load from other threads and processes does not eat into.
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


class CpuClock:
    """CPU seconds of the calling thread (for search budgets: what a search itself spends)."""

    def now(self) -> float:
        """The calling thread's CPU time so far."""
        return time.thread_time()


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
