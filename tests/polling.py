"""Waiting for another thread in tests: always against a deadline, so a broken wait fails the test
with a message instead of hanging the run."""

from __future__ import annotations

import time
from collections.abc import Callable


def wait_until(condition: Callable[[], bool], *, what: str, timeout: float = 10.0) -> None:
    """Poll ``condition`` every millisecond until it holds; fail naming ``what`` after ``timeout`` s."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"gave up after {timeout:g} s waiting until {what}")
        time.sleep(0.001)
