"""The controller's Prometheus metrics and its small HTTP endpoint: ``/metrics`` in the
Prometheus text format and ``/healthz`` (200 while the loop beats, 503 once it stalls).

Metrics live in their own registry (never the process-wide default), so several controllers
in one process, as in the tests, do not collide.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
)

from toposched.model import listen_error

LATENCY_BUCKETS = (0.1, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 300.0, 900.0, 3600.0)


class ControllerMetrics:
    """Pending gangs, placement latency, ungated pods and failed API calls (by HTTP status)."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        self.pending_gangs = Gauge(
            "toposched_controller_pending_gangs",
            "Gangs with gated pods: waiting for pods, for a placement or for their ungating",
            registry=self.registry,
        )
        self.placement_latency = Histogram(
            "toposched_controller_placement_latency_seconds",
            "From a gang being whole to its last pod ungated",
            buckets=LATENCY_BUCKETS,
            registry=self.registry,
        )
        self.ungated_pods = Counter(
            "toposched_controller_ungated_pods",
            "Pods given their assignment and ungated",
            registry=self.registry,
        )
        self.api_errors = Counter(
            "toposched_controller_api_errors",
            "Kubernetes API calls that failed, by HTTP status",
            ["status"],
            registry=self.registry,
        )

    def render(self) -> bytes:
        return generate_latest(self.registry)


@dataclass(slots=True)
class Heartbeat:
    """The loop is healthy while it beat within ``stale_after`` seconds (leader or standby)."""

    clock: Callable[[], float]
    stale_after: float = 60.0
    last: float | None = field(default=None)

    def beat(self) -> None:
        self.last = self.clock()

    def alive(self) -> bool:
        return self.last is not None and self.clock() - self.last <= self.stale_after


def serve(metrics: ControllerMetrics, heartbeat: Heartbeat, host: str, port: int) -> ThreadingHTTPServer:
    """Start the endpoint on a daemon thread; ``shutdown()`` the returned server to stop it. A port
    it cannot listen on is a ``SpecError`` naming ``--metrics-port``."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            if self.path == "/metrics":
                self._answer(200, metrics.render(), CONTENT_TYPE_LATEST)
            elif self.path == "/healthz":
                ok = heartbeat.alive()
                self._answer(200 if ok else 503, b"ok\n" if ok else b"stalled\n", "text/plain")
            else:
                self._answer(404, b"not found: try /metrics or /healthz\n", "text/plain")

        def _answer(self, status: int, body: bytes, content_type: str) -> None:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            return  # scrapes every few seconds would flood the log

    try:
        server = ThreadingHTTPServer((host, port), Handler)
    except OSError as exc:
        raise listen_error("--metrics-port", host, port, exc) from None
    threading.Thread(target=server.serve_forever, name="toposched-metrics", daemon=True).start()
    return server
