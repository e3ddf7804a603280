"""``/metrics`` and ``/healthz``: the four metrics the issue names, served over HTTP (the
ungater's counts on ``FakeKubeApi``)."""

from __future__ import annotations

import urllib.error
import urllib.request
from collections.abc import Iterator

import pytest
from tests.controller.cluster import cluster, controller, kueue_pod

from toposched.controller.kubeapi import PODS
from toposched.controller.metrics import ControllerMetrics, Heartbeat, serve
from toposched.scheduler import ManualClock


@pytest.fixture
def endpoint() -> Iterator[tuple[str, ControllerMetrics, Heartbeat, ManualClock]]:
    clock = ManualClock(1000.0)
    metrics, heartbeat = ControllerMetrics(), Heartbeat(clock.now, stale_after=30.0)
    server = serve(metrics, heartbeat, "127.0.0.1", 0)
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", metrics, heartbeat, clock
    finally:
        server.shutdown()
        server.server_close()


def status(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=10) as answer:
            return int(answer.status)
    except urllib.error.HTTPError as exc:
        return exc.code


def test_healthz_follows_the_heartbeat(
    endpoint: tuple[str, ControllerMetrics, Heartbeat, ManualClock],
) -> None:
    url, _, heartbeat, clock = endpoint
    assert status(f"{url}/healthz") == 503  # no beat yet
    heartbeat.beat()
    assert status(f"{url}/healthz") == 200
    clock.advance(31.0)
    assert status(f"{url}/healthz") == 503
    assert status(f"{url}/nothing") == 404


def test_metrics_count_what_the_ungater_did(
    endpoint: tuple[str, ControllerMetrics, Heartbeat, ManualClock],
) -> None:
    url, metrics, _, _ = endpoint
    api = cluster()
    ctl = controller(api)
    ctl.metrics = metrics
    api.put(PODS, kueue_pod("p0"))
    ctl.step()
    api.conflicts = 1  # one write refused: not repeated, the next pass writes again
    api.put(PODS, kueue_pod("p1"))
    for _ in range(4):
        ctl.step()
    with urllib.request.urlopen(f"{url}/metrics", timeout=10) as answer:
        text = answer.read().decode()
    assert "toposched_controller_ungated_pods_total 2.0" in text
    assert "toposched_controller_pending_gangs 0.0" in text
    assert "toposched_controller_placement_latency_seconds_count 1.0" in text
    assert 'toposched_controller_api_errors_total{status="409"} 1.0' in text
