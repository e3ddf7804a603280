"""A step's watch calls wait side by side, and what one step took from its watches is acted on
even when another watch of that step failed. On ``FakeKubeApi``, whose watches meet or fail at the
test's command."""

from __future__ import annotations

import threading
from collections.abc import Iterator

from tests.controller.cluster import HOST, cluster, controller, kueue_pod, node, pod
from tests.controller.fake_kube import FakeKubeApi

from toposched.controller.keys import is_gated
from toposched.controller.kubeapi import NODES, PODS, KubeApiError, Resource, WatchEvent


class MeetingWatches(FakeKubeApi):
    """Each watch call returns only once ``parties`` watch calls are waiting at the same time:
    calls made one after another would break the barrier."""

    def __init__(self, parties: int) -> None:
        super().__init__()
        self.barrier = threading.Barrier(parties, timeout=10)

    def watch(
        self,
        resource: Resource,
        resource_version: str,
        namespace: str | None = None,
        *,
        timeout_seconds: int = 300,
    ) -> Iterator[WatchEvent]:
        events = super().watch(resource, resource_version, namespace, timeout_seconds=timeout_seconds)
        self.barrier.wait()
        return events


class FailingWatch(FakeKubeApi):
    """The next watch of ``failing`` answers a server error."""

    def __init__(self) -> None:
        super().__init__()
        self.failing: str | None = None

    def watch(
        self,
        resource: Resource,
        resource_version: str,
        namespace: str | None = None,
        *,
        timeout_seconds: int = 300,
    ) -> Iterator[WatchEvent]:
        if resource.plural == self.failing:
            self.failing = None
            raise KubeApiError(500, "etcd is unavailable")
        return super().watch(resource, resource_version, namespace, timeout_seconds=timeout_seconds)


def _seeded(api: FakeKubeApi) -> FakeKubeApi:
    donor = cluster()
    api.objects, api.events, api.version = donor.objects, donor.events, donor.version
    return api


def test_every_informer_watches_at_the_same_time() -> None:
    probe = controller(cluster())
    served = len(list(probe.every_informer())) - 1  # v1beta1 PodGroups: watched only without v1alpha3
    api = _seeded(MeetingWatches(served))
    ctl = controller(api)
    ctl.step()  # the first step lists
    api.put(PODS, kueue_pod("p0"))
    api.put(PODS, kueue_pod("p1"))
    for _ in range(3):
        ctl.step()  # each step's watches meet at the barrier: they run side by side
    assert not is_gated(pod(api, "p0")) and not is_gated(pod(api, "p1"))


def test_changes_taken_by_a_step_whose_other_watch_failed_are_acted_on() -> None:
    api = _seeded(FailingWatch())
    ctl = controller(api)
    for gang in ("a", "b"):  # one rack each: r0 and r1 are full
        for i in range(3):
            api.put(PODS, kueue_pod(f"{gang}{i}", gang, total=3))
    for _ in range(3):
        ctl.step()
    api.failing = PODS.plural
    for i in range(6, 9):
        api.put(NODES, node(i))  # rack r2
    ctl.step()  # the nodes' watch returned r2, the pods' watch failed: the step goes on
    for i in range(3):
        api.put(PODS, kueue_pod(f"c{i}", "c", total=3))
    ctl.clock.advance(60.0)  # past the failed watch's backoff
    for _ in range(3):
        ctl.step()  # r2 is not news to the nodes' watch any more: the scheduler already has it
    hosts = {pod(api, f"c{i}")["spec"]["nodeSelector"][HOST] for i in range(3)}
    assert hosts == {"n6", "n7", "n8"}
