"""The assembled controller: steps only while leading, starts afresh on regaining the lease,
releases it on stop; the sync mode needs the service's store."""

from __future__ import annotations

import threading

import pytest
from tests.controller.cluster import cluster, kueue_pod, pod

from polling import wait_until
from toposched.controller.app import Options, reconciler_factory, run
from toposched.controller.keys import is_gated
from toposched.controller.kubeapi import LEASES, PODS
from toposched.controller.leader import lead
from toposched.controller.metrics import ControllerMetrics
from toposched.controller.modes import Mode
from toposched.model import SpecError
from toposched.scheduler import ManualClock
from toposched.wire.lease import parse_lease


class Scripted:
    """An elector that leads on the ticks ``script`` says, then stops the loop."""

    def __init__(self, script: list[bool], stop: threading.Event) -> None:
        self.script, self.stop, self.released = list(script), stop, False

    def tick(self) -> bool:
        leading = self.script.pop(0)
        if not self.script:
            self.stop.set()
        return leading

    def release(self) -> None:
        self.released = True


class Counted:
    """A reconciler that records its steps and whether it was closed."""

    def __init__(self, number: int, steps: list[int]) -> None:
        self.number, self.steps, self.closed = number, steps, False

    def step(self) -> None:
        self.steps.append(self.number)

    def close(self) -> None:
        self.closed = True


def test_steps_run_only_while_leading_and_start_afresh_after_a_lost_lease() -> None:
    stop = threading.Event()
    elector = Scripted([True, True, False, True, False], stop)
    built: list[Counted] = []
    steps: list[int] = []

    def make_reconciler() -> Counted:
        built.append(Counted(len(built) + 1, steps))
        return built[-1]

    lead(elector, make_reconciler, stop, 0.0)  # type: ignore[arg-type]  # the scripted elector
    assert steps == [1, 1, 2]
    assert [r.closed for r in built] == [True, True]  # each closed when its lease was lost
    assert elector.released


def test_the_reconciler_is_closed_on_stop() -> None:
    stop = threading.Event()
    elector = Scripted([True, True], stop)
    built: list[Counted] = []
    lead(elector, lambda: built.append(Counted(1, [])) or built[-1], stop, 0.0)  # type: ignore[arg-type]
    assert [r.closed for r in built] == [True]


def test_the_controller_ungates_while_it_leads_and_releases_the_lease_on_stop() -> None:
    api = cluster()
    for name in ("p0", "p1"):
        api.put(PODS, kueue_pod(name))
    stop = threading.Event()
    options = Options(identity="replica-a", metrics_port=0, interval=0.01)
    runner = threading.Thread(target=run, args=(api, options, stop))
    runner.start()
    try:
        wait_until(
            lambda: not is_gated(pod(api, "p0")) and not is_gated(pod(api, "p1")), what="the gang is ungated"
        )
    finally:
        stop.set()
        runner.join(timeout=30)
    assert parse_lease(api.obj(LEASES, "toposched-ungater", "toposched-system")).holder == ""


def test_the_sync_mode_needs_the_service_store() -> None:
    with pytest.raises(SpecError, match="--db"):
        reconciler_factory(cluster(), Options(mode=Mode.SYNC), None, ManualClock(), ControllerMetrics())
