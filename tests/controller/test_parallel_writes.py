"""The ungater's pod writes go out side by side, bounded: after the first pod of a gang (which
records them all) the others are in flight together, never more than ``write_concurrency`` at
once; a write that fails is that pod's alone (the others land and are awaited), the gang counts as
ungated only once every write landed, and the next pass writes the rest. On ``FakeKubeApi``,
whose writes meet or fail at the test's command."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from tests.controller.cluster import cluster, controller, kueue_pod, pod
from tests.controller.fake_kube import FakeKubeApi

from toposched.controller.keys import GangKey, is_gated
from toposched.controller.kubeapi import PODS, KubeApiError, Object
from toposched.controller.podwrites import check_concurrency
from toposched.frontends.kueue.membership import KEY as KUEUE_KEY
from toposched.model import SpecError

GANG = [f"p{i}" for i in range(6)]  # six whole-node pods: both racks of the cluster
GANG_KEY = GangKey(KUEUE_KEY, "default", "g")


def seeded(api: FakeKubeApi) -> FakeKubeApi:
    donor = cluster()
    api.objects, api.events, api.version = donor.objects, donor.events, donor.version
    for name in GANG:
        api.put(PODS, kueue_pod(name, total=len(GANG), level="topology.kubernetes.io/zone"))
    return api


class CountingWrites(FakeKubeApi):
    """Pod patches that take a moment, counting how many are in flight at once (the most seen)."""

    def __init__(self) -> None:
        super().__init__()
        self.guard = threading.Lock()
        self.in_flight = self.most = 0
        self.gate = threading.Event()

    def patch(self, *args: Any, **kwargs: Any) -> Object:
        with self.guard:
            self.in_flight += 1
            self.most = max(self.most, self.in_flight)
        self.gate.wait(0.2)  # the others get time to start
        try:
            return super().patch(*args, **kwargs)
        finally:
            with self.guard:
                self.in_flight -= 1


class FailingOne(FakeKubeApi):
    """The next patch of pod ``failing`` answers a server error."""

    failing: str | None = None

    def patch(self, resource: Any, name: str, *args: Any, **kwargs: Any) -> Object:
        if name == self.failing:
            self.failing = None
            raise KubeApiError(500, "etcd is unavailable")
        return super().patch(resource, name, *args, **kwargs)


@pytest.mark.parametrize("concurrency", [1, 3, 16])
def test_the_writes_after_the_first_are_in_flight_together_up_to_the_bound(concurrency: int) -> None:
    api = seeded(CountingWrites())
    ctl = controller(api, write_concurrency=concurrency)
    ctl.step()
    ctl.close()
    assert not any(is_gated(pod(api, n)) for n in GANG)
    assert api.most == min(concurrency, len(GANG) - 1)  # the first pod alone, then the other five


def test_a_failed_write_is_that_pods_alone_and_the_next_pass_writes_it() -> None:
    api = seeded(FailingOne())
    ctl = controller(api)
    api.failing = "p3"
    ctl.step()
    assert [n for n in GANG if is_gated(pod(api, n))] == ["p3"]  # the others landed
    assert list(ctl.reconciler.whole_at) == [GANG_KEY]  # not counted placed while a pod is gated
    ctl.step()
    assert not any(is_gated(pod(api, n)) for n in GANG)
    assert ctl.reconciler.whole_at == {} and ctl.reconciler.ungated == len(GANG)


@pytest.mark.parametrize("bad", [0, -1, 257])
def test_a_write_concurrency_out_of_bounds_is_refused_naming_the_option(bad: int) -> None:
    with pytest.raises(SpecError, match="--write-concurrency"):
        check_concurrency(bad)
