"""Watches that run on threads of their own, one per informer, so news wakes the controller at
once instead of waiting for a step's watch calls to end (``UngaterController(streamed=True)``).

Each thread calls ``fetch`` (one watch call, or a listing, with the caller's failure handling and
backoff) over and over while ``watching`` says so; an informer queues what each call delivers
and sets ``news``. ``wait`` returns once there is news, or after the given seconds (the step then
runs anyway: clocks, backoffs and the lease need it), or once ``stop`` is set.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from toposched.controller.informer import Informer

PAUSE = 0.05  # seconds between two calls of one informer: a server that ends watches at once must not make it spin
STOP_CHECK = 0.1  # seconds: how soon ``wait`` notices ``stop``


class Streams:
    def __init__(
        self,
        fetch: Callable[[Informer], None],
        watching: Callable[[Informer], bool],
        *,
        watch_seconds: int = 60,
    ) -> None:
        """``fetch``: one call of an informer; ``watching``: whether its thread goes on;
        ``watch_seconds``: how long each watch call may stay open."""
        self.news = threading.Event()
        self._fetch, self._watching, self._watch_seconds = fetch, watching, watch_seconds
        self._closed = threading.Event()
        self._threads: dict[int, threading.Thread] = {}

    def start(self, informer: Informer) -> None:
        """Watch ``informer`` on a thread of its own (once)."""
        if id(informer) in self._threads or self._closed.is_set():
            return
        informer.timeout_seconds = self._watch_seconds
        informer.on_delivery = self.news.set
        thread = threading.Thread(
            target=self._run,
            args=(informer,),
            name=f"toposched-watch-{informer.resource.plural}",
            daemon=True,
        )
        self._threads[id(informer)] = thread
        thread.start()

    def wait(self, seconds: float, stop: threading.Event) -> None:
        """Until there is news, ``seconds`` passed or ``stop`` is set; the news is then taken."""
        left = seconds
        while left > 0 and not stop.is_set():
            if self.news.wait(min(STOP_CHECK, left)):
                break
            left -= STOP_CHECK
        self.news.clear()

    def close(self) -> None:
        """Stop the threads after their current call (each ends within its ``watch_seconds``)."""
        self._closed.set()

    def _run(self, informer: Informer) -> None:
        while not self._closed.is_set() and self._watching(informer):
            self._fetch(informer)
            self._closed.wait(PAUSE)
        self.news.set()  # it stopped: a kind not served may let another be watched (v1beta1 PodGroups)
