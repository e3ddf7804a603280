"""The HTTP server ``toposched serve`` runs: uvicorn's h11 protocol with a deadline for reading
each request and a cap on open connections, so slow or idle clients cannot hold the server.

* ``read_timeout``: once a connection opens, or a request's first byte arrives, the request's
  head and body must be complete within this many seconds, else the connection is closed
  (a client sending one byte every few seconds is cut off like a silent one).
* ``keep_alive``: an idle connection between requests is closed after this many seconds.
* ``max_connections``: a new connection beyond the cap closes the oldest connection that is
  still reading a request or idle; a request being handled is never cut. When every
  connection is busy with a request, the new one is closed instead.
* ``max_head_bytes``: the request line and headers (h11's incomplete-event limit); bodies are
  bounded by ``BodyLimitMiddleware``.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

import h11
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

_READING = (h11.IDLE, h11.SEND_BODY)  # the client's side of the connection while it sends a request


@dataclass(frozen=True, slots=True)
class ServerLimits:
    """Timeouts (seconds) and caps of the HTTP server (see the module docstring)."""

    read_timeout: float = 30.0
    # Longer than uvicorn's 5 s default, so clients that pause between requests under load do
    # not race the server closing their connection.
    keep_alive: int = 30
    max_connections: int = 512  # below the usual 1024 open files, so accepting never fails
    max_head_bytes: int = 64 * 1024


def guarded_protocol(limits: ServerLimits) -> type[H11Protocol]:
    """uvicorn's h11 protocol with ``limits``' read deadline and connection cap."""

    class GuardedProtocol(H11Protocol):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self._deadline: asyncio.TimerHandle | None = None
            self._opened = 0.0

        @property
        def reading(self) -> bool:
            """Still receiving a request, or idle: no request of it is being handled."""
            return self.conn.their_state in _READING and (
                self.cycle is None or self.cycle.response_complete or self.conn.their_state is h11.SEND_BODY
            )

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self._opened = self.loop.time()
            self._arm()
            if len(self.connections) > limits.max_connections:
                self._make_room()

        def data_received(self, data: bytes) -> None:
            if self._deadline is None and self.conn.their_state in _READING:
                self._arm()  # a request starts: it has read_timeout seconds to arrive whole
            super().data_received(data)
            if self.conn.their_state not in _READING:
                self._disarm()

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
        http=guarded_protocol(limits),
        timeout_keep_alive=limits.keep_alive,
        h11_max_incomplete_event_size=limits.max_head_bytes,
    )
    uvicorn.Server(config).run()
