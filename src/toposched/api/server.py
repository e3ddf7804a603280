"""The HTTP server ``toposched serve`` runs: uvicorn's httptools protocol (its C parser costs a
quarter of h11's pure-Python one per request) with a deadline for reading each request and a cap
on open connections, so slow or idle clients cannot hold the server.

* ``read_timeout``: once a connection opens, or a request's first byte arrives, the request's
  head and body must be complete within this many seconds, else the connection is closed
  (a client sending one byte every few seconds is cut off like a silent one).
* ``keep_alive``: an idle connection between requests is closed after this many seconds.
* ``max_connections``: a new connection beyond the cap closes the oldest connection that is
  still reading a request or idle; a request being handled is never cut. When every
  connection is busy with a request, the new one is closed instead.
* ``max_head_bytes``: the request line and headers; a request whose head is still incomplete
  after this many bytes is answered 400 and its connection closed. Bodies are bounded by
  ``BodyLimitMiddleware``.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

import uvicorn
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol


@dataclass(frozen=True, slots=True)
class ServerLimits:
    """Timeouts (seconds) and caps of the HTTP server (see the module docstring)."""

    read_timeout: float = 30.0
    # Longer than uvicorn's 5 s default, so clients that pause between requests under load do
    # not race the server closing their connection.
    keep_alive: int = 30
    max_connections: int = 512  # below the usual 1024 open files, so accepting never fails
    max_head_bytes: int = 64 * 1024


def guarded_protocol(limits: ServerLimits) -> type[HttpToolsProtocol]:
    """uvicorn's httptools protocol with ``limits``' read deadline, head size and connection cap."""

    class GuardedProtocol(HttpToolsProtocol):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self._deadline: asyncio.TimerHandle | None = None
            self._opened = 0.0
            self._receiving = False  # a request has begun and not yet arrived whole
            self._in_head = False  # ... and its request line and headers are still arriving
            self._head_bytes = 0  # bytes received since the request began, while in its head

        @property
        def reading(self) -> bool:
            """Still receiving a request, or idle: no request of it is being handled."""
            return self._receiving or self.cycle is None or self.cycle.response_complete

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self._opened = self.loop.time()
            self._arm()
            if len(self.connections) > limits.max_connections:
                self._make_room()

        def data_received(self, data: bytes) -> None:
            if self._deadline is None and self.reading:
                self._arm()  # a request starts: it has read_timeout seconds to arrive whole
            if not self._receiving:
                self._head_bytes = 0
            if self._in_head or not self._receiving:
                self._head_bytes += len(data)
            super().data_received(data)
            if self._in_head and self._head_bytes > limits.max_head_bytes:
                self.send_400_response("Request line and headers too large.")
            elif not self.reading:
                self._disarm()

        def on_message_begin(self) -> None:
            super().on_message_begin()
            self._receiving = self._in_head = True

        def on_headers_complete(self) -> None:
            self._in_head = False
            super().on_headers_complete()

        def on_message_complete(self) -> None:
            self._receiving = False
            super().on_message_complete()

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            super().connection_lost(exc)

        def _arm(self) -> None:
            self._disarm()
            self._deadline = self.loop.call_later(limits.read_timeout, self._read_timed_out)

        def _disarm(self) -> None:
            if self._deadline is not None:
                self._deadline.cancel()
                self._deadline = None

        def _read_timed_out(self) -> None:
            self._deadline = None
            if self.reading and not self.transport.is_closing():
                self.transport.close()

        def _make_room(self) -> None:
            others = [
                c for c in self.connections if isinstance(c, GuardedProtocol) and c is not self and c.reading
            ]
            if not others:
                self.transport.close()
                return
            oldest = min(others, key=lambda c: c._opened)
            oldest.transport.close()

    return GuardedProtocol


def run_server(app: Any, *, host: str, port: int, limits: ServerLimits) -> None:
    """Serve ``app`` until SIGINT or SIGTERM (uvicorn shuts down gracefully, then re-raises the
    signal for the caller's handler)."""
    config = uvicorn.Config(
        app,
        host=host,
        port=port,
        log_level="warning",
        access_log=False,  # at the warning level no access line is written; skip building them
        http=guarded_protocol(limits),
        timeout_keep_alive=limits.keep_alive,
    )
    uvicorn.Server(config).run()
