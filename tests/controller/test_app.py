"""The assembled controller's loop on the in-memory double, with stand-in reconcilers: it steps
only while leading, renews the lease while a long pass runs (a pass made slow on purpose) and
starts afresh in each term; the sync mode needs the service's store. The whole controller, on the
real API server with its lease released on stop, is in ``test_real_controller``."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from tests.controller.cluster import cluster, kueue_pod, pod
from tests.controller.fake_kube import FakeKubeApi

from polling import wait_until
from toposched.controller.app import Options, reconciler_factory
from toposched.controller.fencing import FencedKubeApi
from toposched.controller.kubeapi import LEASES, PODS, KubeApi
from toposched.controller.leader import LeaderElector, lead
from toposched.controller.metrics import ControllerMetrics
from toposched.controller.modes import Mode
from toposched.controller.ungater_controller import UngaterController
from toposched.frontends.registry import default_registry
from toposched.model import SpecError
from toposched.scheduler import ManualClock, SystemClock
from toposched.wire.lease import LeaseRecord, lease_object, parse_lease

LEASE = ("toposched", "toposched-system")


class Counted:
    """A reconciler that records its steps (and, with ``write``, patches a pod each step)."""

    def __init__(self, api: KubeApi, steps: list[int], number: int, *, busy: float = 0.0) -> None:
        self.api, self.steps, self.number, self.busy, self.closed = api, steps, number, busy, False

    def step(self) -> None:
        time.sleep(self.busy)
        self.steps.append(self.number)
        if self.busy:
            self.api.patch(PODS, "p0", {"metadata": {"labels": {"step": str(len(self.steps))}}}, "default")

    def close(self) -> None:
        self.closed = True


@contextmanager
def leading(elector: LeaderElector, built: list[Counted], *, busy: float = 0.0) -> Iterator[threading.Event]:
    """``lead`` on a thread, building ``Counted`` reconcilers into ``built``; stopped on exit."""
    stop, steps = threading.Event(), []

    def make(api: KubeApi) -> Counted:
        built.append(Counted(api, steps, len(built) + 1, busy=busy))
        return built[-1]

    runner = threading.Thread(target=lead, args=(elector, make, stop, 0.01))
    runner.start()
    try:
        yield stop
    finally:
        stop.set()
        runner.join(timeout=30)
    assert not runner.is_alive()


def hold(api: FakeKubeApi, holder: str) -> None:
    """Another replica takes the lease (or, with "", it is released)."""
    record = LeaseRecord(holder, 15, 1_000_000.0, 1_000_000.0, 5)
    api.put(LEASES, lease_object(*LEASE, record))


def test_each_term_steps_with_a_fresh_reconciler_writing_through_its_fence() -> None:
    api, clock = FakeKubeApi(), ManualClock(1_000_000.0)
    elector = LeaderElector(api, *LEASE, "a", clock, retry_period=0.01)
    built: list[Counted] = []
    with leading(elector, built):
        wait_until(lambda: len(built) == 1 and built[0].steps, what="the first term steps")
        hold(api, "b")
        wait_until(lambda: built[0].closed, what="the lost term's reconciler is closed")
        clock.advance(16.0)  # b's record expires, as a seen by its own clock
        wait_until(lambda: len(built) == 2 and 2 in built[0].steps, what="a second term steps")
    assert all(isinstance(r.api, FencedKubeApi) for r in built)
    assert [r.closed for r in built] == [True, True]  # the second closed on stop
    assert parse_lease(api.obj(LEASES, *LEASE)).holder == ""  # released


def test_the_lease_is_renewed_while_a_long_pass_runs() -> None:
    api = cluster()
    api.put(PODS, kueue_pod("p0"))
    elector = LeaderElector(
        api,
        *LEASE,
        "a",
        SystemClock(),
        lease_duration=2,
        renew_deadline=1.0,
        retry_period=0.1,
        timer=time.monotonic,
    )
    built: list[Counted] = []
    with leading(elector, built, busy=1.5):  # each pass outlasts the renew deadline, then writes
        wait_until(lambda: len(built[0].steps if built else []) >= 2, what="two long passes", timeout=30)
    assert len(built) == 1  # one term throughout
    assert pod(api, "p0")["metadata"]["labels"]["step"] in ("2", "3")  # the writes went through


def test_the_sync_mode_needs_the_service_store() -> None:
    with pytest.raises(SpecError, match="--db"):
        reconciler_factory(Options(mode=Mode.SYNC), None, ManualClock(), ControllerMetrics())


def test_the_ungater_mode_schedules_with_the_registry_it_is_given() -> None:
    registry = default_registry()
    build = reconciler_factory(Options(registry=registry), None, ManualClock(), ControllerMetrics())
    controller = build(FakeKubeApi())
    assert isinstance(controller, UngaterController) and controller.scheduler.registry is registry
