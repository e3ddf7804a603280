"""``UngaterController(streamed=True)``, as ``toposched controller`` runs it: the watches run on
threads of their own and a step is due as soon as one of them delivers news, not after a fixed
wait; a kind the cluster does not serve ends its thread and its stand-in (v1beta1 PodGroups) is
watched instead. On ``FakeKubeApi``, whose watches end at once (the threads call again after a
short pause)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from tests.controller.cluster import cluster, kube_pod, kube_podgroup, kueue_pod, pod
from tests.controller.fake_kube import FakeKubeApi

from polling import wait_until
from toposched.controller.keys import is_gated
from toposched.controller.kubeapi import (
    KUBE_PODGROUPS,
    KUBE_PODGROUPS_V1ALPHA3,
    PODS,
    ApiNotFoundError,
    Listing,
    Resource,
)
from toposched.controller.ungater_controller import UngaterController
from toposched.scheduler import ManualClock, Scheduler
from toposched.store import MemoryStore

IDLE = 30.0  # seconds a step may wait for news: far more than news takes to arrive


def streamed(api: FakeKubeApi) -> UngaterController:
    clock = ManualClock(1000.0)
    return UngaterController(api, Scheduler(MemoryStore(history=False), clock), clock, streamed=True)


def steps_until(ctl: UngaterController, done: Callable[[], bool], stop: threading.Event) -> float:
    """Wait and step until ``done``; the seconds it took (each wait is up to ``IDLE``)."""
    start = time.monotonic()
    for _ in range(50):
        ctl.step()
        if done():
            return time.monotonic() - start
        ctl.wait(IDLE, stop)
    raise AssertionError("not done after 50 steps")


def test_news_wakes_the_next_step_at_once() -> None:
    api = cluster()
    ctl = streamed(api)
    stop = threading.Event()
    try:
        steps_until(ctl, ctl._synced, stop)  # every kind listed
        api.put(PODS, kueue_pod("p0"))
        api.put(PODS, kueue_pod("p1"))
        took = steps_until(ctl, lambda: not is_gated(pod(api, "p0")) and not is_gated(pod(api, "p1")), stop)
    finally:
        ctl.close()
    assert took < IDLE / 3  # woken by the watch events, not by the wait running out


def test_a_wait_without_news_ends_after_its_seconds_or_at_stop() -> None:
    api = cluster()
    ctl = streamed(api)
    stop = threading.Event()
    try:
        steps_until(ctl, ctl._synced, stop)
        ctl.wait(0.01, stop)  # news of the listings, if any is left
        start = time.monotonic()
        ctl.wait(0.3, stop)
        idle = time.monotonic() - start
        threading.Timer(0.2, stop.set).start()
        start = time.monotonic()
        ctl.wait(IDLE, stop)
        stopped = time.monotonic() - start
    finally:
        ctl.close()
    assert idle >= 0.25 and stopped < IDLE / 3


class WithoutV1alpha3(FakeKubeApi):
    """A cluster that does not serve scheduling.k8s.io/v1alpha3."""

    def list(
        self, resource: Resource, namespace: str | None = None, *, label_selector: str | None = None
    ) -> Listing:
        if resource == KUBE_PODGROUPS_V1ALPHA3:
            raise ApiNotFoundError(404, "the server could not find the requested resource")
        return super().list(resource, namespace, label_selector=label_selector)


def test_a_kind_not_served_ends_its_watch_and_v1beta1_podgroups_are_watched_instead() -> None:
    api = WithoutV1alpha3()
    donor = cluster()
    api.objects, api.events, api.version = donor.objects, donor.events, donor.version
    api.put(KUBE_PODGROUPS, kube_podgroup(min_count=2))
    for name in ("w0", "w1"):
        api.put(PODS, kube_pod(name))
    ctl = streamed(api)
    stop = threading.Event()
    try:
        steps_until(ctl, lambda: not is_gated(pod(api, "w0")) and not is_gated(pod(api, "w1")), stop)
        wait_until(lambda: KUBE_PODGROUPS_V1ALPHA3 in ctl.missing_kinds, what="v1alpha3 is known not served")
    finally:
        ctl.close()
