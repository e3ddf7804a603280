"""The ``Scheduler``'s run loop: a cycle whenever something may let a workload in, else when the
next backoff ends, and at least every ``interval`` seconds."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from toposched.scheduler.state import State

log = logging.getLogger("toposched.scheduler.scheduler")  # the name operators filter on


def run_loop(
    state: State, cycle: Callable[[], object], stop: threading.Event, interval: float, settle: float
) -> None:
    """Cycle until ``stop`` is set: when woken (submission, release, node, topology or pod
    change), else when the next backoff ends, and at least every ``interval`` seconds (for
    node grace periods and changes other processes write to the store). After a cycle the loop
    rests ``settle`` seconds, so a burst of requests is handled by one cycle instead of one
    each. Store failures are logged and retried on the next pass."""
    while not stop.is_set():
        state.wake.clear()
        try:
            cycle()
        except Exception as exc:  # a service loop must survive a bad pass; the next one retries
            log.exception("scheduling cycle failed; retrying")
            state.health.last_error = f"{type(exc).__name__}: {exc}"
            state.health.last_error_at = state.clock.now()
        if stop.wait(min(settle, interval)):
            return
        state.wake.wait(_sleep(state, interval))


def _sleep(state: State, interval: float) -> float:
    """Seconds until the loop has something to do by itself: the next backoff end, at most ``interval``."""
    ends = [b.not_before for b in list(state.backoff.values())]
    if not ends:
        return interval
    return min(interval, max(0.001, min(ends) - state.clock.now()))
