"""Python's cyclic garbage collector paused while an input is compiled.

Compiling a large input makes hundreds of thousands of small containers (a 100,000-pod Job's pods,
their links and the gang's pod specs), none of them in a cycle. Each allocation burst triggers a
collection that walks every young container and frees nothing: more than half of such a compile
(``bench/kube_intake.py`` measures it, ``upstream-gc``). The collector is process-wide, so
the pause is counted: it resumes when the last compile running in any thread ends, and only if it
was running when the first one began.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager


class _Pause:
    """How many compiles hold the collector paused, and whether it ran before the first."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.holders = 0
        self.resume = False


_PAUSE = _Pause()


@contextmanager
def collector_paused() -> Iterator[None]:
    """Pause cyclic collection for the ``with`` body (nesting and threads allowed)."""
    with _PAUSE.lock:
        if _PAUSE.holders == 0:
            _PAUSE.resume = gc.isenabled()
            gc.disable()
        _PAUSE.holders += 1
    try:
        yield
    finally:
        with _PAUSE.lock:
            _PAUSE.holders -= 1
            if _PAUSE.holders == 0 and _PAUSE.resume:
                gc.enable()
