"""Leader election through a Lease: acquire, renew, give up, hand over; never two leaders."""

from __future__ import annotations

import pytest
from tests.controller.fake_kube import FakeKubeApi

from toposched.controller.kubeapi import LEASES, KubeApiError
from toposched.controller.leader import LeaderElector
from toposched.model import SpecError
from toposched.scheduler import ManualClock
from toposched.wire.lease import parse_lease


class Partitioned(FakeKubeApi):
    """Refuses every call while ``cut`` is set (the tests set it around one replica's calls)."""

    def __init__(self) -> None:
        super().__init__()
        self.cut = False

    def get(self, *args: object, **kwargs: object) -> dict[str, object]:  # type: ignore[override]
        if self.cut:
            raise KubeApiError(503, "unreachable")
        return super().get(*args, **kwargs)  # type: ignore[arg-type]


def electors(api: FakeKubeApi, clock: ManualClock) -> tuple[LeaderElector, LeaderElector]:
    a = LeaderElector(api, "toposched", "toposched-system", "a", clock)
    b = LeaderElector(api, "toposched", "toposched-system", "b", clock)
    return a, b


def holder(api: FakeKubeApi) -> str:
    return parse_lease(api.obj(LEASES, "toposched", "toposched-system")).holder


def test_the_first_replica_acquires_and_renews_while_the_other_waits() -> None:
    api, clock = FakeKubeApi(), ManualClock(1_000_000.0)
    a, b = electors(api, clock)
    assert a.tick() and not b.tick()
    for _ in range(10):
        clock.advance(5.0)
        assert a.tick()
        assert not b.tick()
    assert holder(api) == "a"


def test_the_lease_is_taken_over_once_its_holder_stops_renewing() -> None:
    api, clock = FakeKubeApi(), ManualClock(1_000_000.0)
    a, b = electors(api, clock)
    a.tick()
    b.tick()
    clock.advance(14.0)
    assert not b.tick()  # not expired yet by b's own observation
    clock.advance(2.0)
    assert b.tick()
    assert holder(api) == "b"
    assert parse_lease(api.obj(LEASES, "toposched", "toposched-system")).transitions == 1
    assert not a.tick()  # a sees b's fresh record and stops


def test_a_partitioned_leader_gives_up_before_anyone_else_can_start() -> None:
    api, clock = Partitioned(), ManualClock(1_000_000.0)
    a, b = electors(api, clock)
    assert a.tick()
    b.tick()
    leaders: list[set[str]] = []
    for _ in range(40):
        clock.advance(1.0)
        api.cut = True
        a_leads = a.tick()
        api.cut = False
        b_leads = b.tick()
        leaders.append({n for n, on in (("a", a_leads), ("b", b_leads)) if on})
    assert all(len(now) <= 1 for now in leaders)
    assert leaders[-1] == {"b"}
    assert {"a"} in leaders  # a kept leading through short outages


def test_a_released_lease_is_taken_over_at_once() -> None:
    api, clock = FakeKubeApi(), ManualClock(1_000_000.0)
    a, b = electors(api, clock)
    a.tick()
    b.tick()
    a.release()
    assert not a.leading()
    clock.advance(2.0)
    assert b.tick()


def test_a_renew_deadline_longer_than_the_lease_is_refused() -> None:
    with pytest.raises(SpecError, match="renew_deadline"):
        LeaderElector(FakeKubeApi(), "l", "ns", "a", ManualClock(), lease_seconds=5, renew_deadline=6)
