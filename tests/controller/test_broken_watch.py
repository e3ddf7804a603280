"""A watch that keeps failing is retried alone, with backoff, while the other watches and the
pass go on; a gang whose writes fail waits while the other gangs go on; expected failures (a
reset connection, 410, a server error, timeouts) are one log line. Error paths a real API server
cannot be made to produce on demand, so on the doubles (``FakeKubeApi``, ``KubeTestServer``)."""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from kubernetes.client import Configuration
from tests.controller.cluster import TOPOLOGY, cluster, controller, kueue_pod, node, pod
from tests.controller.fake_kube import FakeKubeApi
from tests.controller.kube_test_server import KubeTestServer

from polling import wait_until
from toposched.controller.keys import is_gated
from toposched.controller.kubeapi import (
    KAI_PODGROUPS,
    KUEUE_TOPOLOGIES,
    NODES,
    PODS,
    KubeApi,
    KubeApiError,
    Resource,
    WatchEvent,
)
from toposched.controller.leader import LeaderElector, lead
from toposched.controller.rest import RestKubeApi
from toposched.controller.ungater_controller import UngaterController
from toposched.scheduler import ManualClock, Scheduler
from toposched.store import MemoryStore
from toposched.wire.kueue import topology_object


class BrokenWatch(FakeKubeApi):
    """Every watch of one kind fails, as a connection reset does; the times of each are kept."""

    def __init__(self, broken: Resource, clock: ManualClock) -> None:
        super().__init__()
        self.broken, self.clock, self.attempts = broken, clock, list[float]()

    def watch(
        self,
        resource: Resource,
        resource_version: str,
        namespace: str | None = None,
        *,
        timeout_seconds: int = 300,
    ) -> Iterator[WatchEvent]:
        if resource == self.broken:
            self.attempts.append(self.clock.now())
            raise KubeApiError(0, f"watch {resource.plural}: the stream broke: connection reset by peer")
        return super().watch(resource, resource_version, namespace, timeout_seconds=timeout_seconds)


def one_liners(caplog: pytest.LogCaptureFixture) -> list[str]:
    """The controller's warnings, each checked to be one line without a traceback."""
    found = [
        r
        for r in caplog.records
        if r.name.startswith("toposched.controller") and r.levelno >= logging.WARNING
    ]
    assert all(r.exc_info is None and "\n" not in r.getMessage() for r in found)
    return [r.getMessage() for r in found]


def test_a_watch_that_keeps_failing_waits_alone_while_the_others_go_on(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.WARNING)
    clock = ManualClock(1000.0)
    api = BrokenWatch(KAI_PODGROUPS, clock)
    donor = cluster()
    api.objects, api.events, api.version = donor.objects, donor.events, donor.version
    ctl = controller(api, clock)
    ctl.step()  # every kind listed
    for name in ("p0", "p1"):
        api.put(PODS, kueue_pod(name))
    for _ in range(30):
        ctl.step()
        clock.advance(1.0)
    assert not is_gated(pod(api, "p0")) and not is_gated(pod(api, "p1"))
    waits = [later - earlier for earlier, later in zip(api.attempts, api.attempts[1:], strict=False)]
    assert 3 <= len(api.attempts) < 15  # 29 passes watched it far fewer times
    assert waits == sorted(waits) and waits[-1] >= 4.0  # backing off
    said = one_liners(caplog)
    assert len(said) == len(api.attempts)
    assert all("watching scheduling.run.ai/v2alpha2/podgroups failed" in line for line in said)


def test_a_reset_watch_connection_is_one_line_and_the_gang_is_placed(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.WARNING)
    server = KubeTestServer().start()
    api = RestKubeApi(Configuration(host=server.url), request_timeout=10)
    try:
        server.add(KUEUE_TOPOLOGIES, topology_object(TOPOLOGY))
        for i in range(6):
            server.add(NODES, node(i))
        for name in ("p0", "p1"):
            server.add(PODS, kueue_pod(name))
        server.broken.add(KAI_PODGROUPS)
        clock = ManualClock(1000.0)
        ctl = UngaterController(api, Scheduler(MemoryStore(history=False), clock), clock, watch_seconds=0)
        for _ in range(4):
            ctl.step()
            clock.advance(1.0)
        assert not any(is_gated(server.object(PODS, n)) for n in ("p0", "p1"))
        said = one_liners(caplog)
        assert said and all("podgroups failed" in line for line in said)
    finally:
        api.close()
        server.stop()


class Failing:
    """A reconciler whose passes fail as the API server answers: expected, so one line each."""

    def __init__(self, error: Exception) -> None:
        self.error, self.steps = error, 0

    def step(self) -> None:
        self.steps += 1
        raise self.error

    def close(self) -> None:
        """Nothing to stop."""


@pytest.mark.parametrize(
    "error",
    [
        KubeApiError(410, "watch pods: too old resource version"),
        KubeApiError(0, "patch pods/p0: no response from https://10.0.0.1: connection reset by peer"),
        KubeApiError(504, "patch pods/p0: Timeout: request did not complete within requested timeout"),
    ],
    ids=["expired", "reset", "timeout"],
)
def test_a_pass_failing_as_expected_is_one_line(caplog: pytest.LogCaptureFixture, error: Exception) -> None:
    caplog.set_level(logging.WARNING)
    api, stop = FakeKubeApi(), threading.Event()
    elector = LeaderElector(
        api, "toposched", "toposched-system", "a", ManualClock(1_000_000.0), retry_period=0.01
    )
    failing = Failing(error)

    def make(_: KubeApi) -> Failing:
        return failing

    runner = threading.Thread(target=lead, args=(elector, make, stop, 0.01))
    runner.start()
    try:
        wait_until(lambda: failing.steps >= 3, what="three passes failed")
    finally:
        stop.set()
        runner.join(timeout=30)
    said = one_liners(caplog)
    assert said and all(line == f"controller pass failed: {error}" for line in said)


class FailingGang(FakeKubeApi):
    """Every write to the pods of one gang fails with a server error."""

    def __init__(self, gang: str) -> None:
        super().__init__()
        self.gang = gang

    def patch(self, resource: Resource, name: str, *args: Any, **kwargs: Any) -> dict[str, Any]:  # type: ignore[override]
        if resource == PODS and name.startswith(self.gang):
            raise KubeApiError(500, f"patch pods/{name}: etcdserver: request timed out")
        return super().patch(resource, name, *args, **kwargs)  # type: ignore[no-any-return]


def test_a_gang_whose_writes_fail_does_not_hold_up_the_others(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING)
    api = FailingGang("a")
    donor = cluster()
    api.objects, api.events, api.version = donor.objects, donor.events, donor.version
    ctl = controller(api)
    for gang in ("a", "b"):  # placed in this order, one rack each
        for i in range(2):
            api.put(PODS, kueue_pod(f"{gang}{i}", gang))
    for _ in range(3):
        ctl.step()
    assert not is_gated(pod(api, "b0")) and not is_gated(pod(api, "b1"))
    assert is_gated(pod(api, "a0")) and is_gated(pod(api, "a1"))
    said = one_liners(caplog)
    assert said and all(line.startswith("gang kueue:default/a: 500: patch pods/a") for line in said)
