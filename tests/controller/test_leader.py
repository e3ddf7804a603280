"""Leader election through a Lease: acquire, renew, give up, hand over; never two leaders; the
fence refuses the writes of a replica that may no longer write and bounds the others.

Acquiring, renewing, taking over and releasing run on the real API server, as the ungater's
ServiceAccount (the Lease's get, create and update its RBAC grants), with a manual clock: the
server's conflicts on a stale resourceVersion or an existing name decide which replica wins. On
the in-memory double: a replica cut off from the server, or slower than its lease, and what the
fence lets through (no server decides that).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from tests.controller.fake_kube import FakeKubeApi
from tests.controller.real_cluster import CONTROLLER_NAMESPACE, ControllerAccounts, RealCluster

from toposched.controller.fencing import FencedKubeApi, NotLeaderError
from toposched.controller.kubeapi import LEASES, PODS, KubeApi, KubeApiError
from toposched.controller.leader import LeaderElector
from toposched.controller.modes import Mode
from toposched.controller.rest import RestKubeApi, connect
from toposched.model import SpecError
from toposched.scheduler import ManualClock
from toposched.wire.core import pod_object
from toposched.wire.lease import LeaseRecord, parse_lease


class Partitioned(FakeKubeApi):
    """Refuses every call while ``cut`` is set (the tests set it around one replica's calls)."""

    def __init__(self) -> None:
        super().__init__()
        self.cut = False

    def get(self, *args: object, **kwargs: object) -> dict[str, object]:  # type: ignore[override]
        if self.cut:
            raise KubeApiError(503, "unreachable")
        return super().get(*args, **kwargs)  # type: ignore[arg-type]


def electors(
    api: KubeApi, clock: ManualClock, name: str = "toposched"
) -> tuple[LeaderElector, LeaderElector]:
    a = LeaderElector(api, name, "toposched-system", "a", clock)
    b = LeaderElector(api, name, "toposched-system", "b", clock)
    return a, b


def holder(api: FakeKubeApi) -> str:
    return parse_lease(api.obj(LEASES, "toposched", "toposched-system")).holder


@pytest.fixture
def lease_api(controller_accounts: ControllerAccounts) -> Iterator[RestKubeApi]:
    api = connect(str(controller_accounts[Mode.UNGATER]))
    yield api
    api.close()


def real_lease(api: KubeApi, cluster: RealCluster) -> LeaseRecord:
    return parse_lease(api.get(LEASES, cluster.lease, CONTROLLER_NAMESPACE))


def test_the_first_replica_acquires_and_renews_while_the_other_waits(
    real_cluster: RealCluster, lease_api: RestKubeApi
) -> None:
    clock = ManualClock(1_000_000.0)
    a, b = electors(lease_api, clock, real_cluster.lease)
    first = (a.tick(), b.tick())
    turns = []
    for _ in range(5):
        clock.advance(5.0)
        turns.append((a.tick(), b.tick()))

    assert first == (True, False)
    assert turns == [(True, False)] * 5
    assert real_lease(lease_api, real_cluster).holder == "a"


def test_the_lease_is_taken_over_once_its_holder_stops_renewing(
    real_cluster: RealCluster, lease_api: RestKubeApi
) -> None:
    clock = ManualClock(1_000_000.0)
    a, b = electors(lease_api, clock, real_cluster.lease)
    a.tick()
    b.tick()
    clock.advance(14.0)
    early = b.tick()  # not expired yet by b's own observation
    clock.advance(2.0)
    taken = b.tick()

    assert (early, taken) == (False, True)
    assert (real_lease(lease_api, real_cluster).holder, real_lease(lease_api, real_cluster).transitions) == (
        "b",
        1,
    )
    assert not a.tick()  # a sees b's fresh record and stops


def test_a_released_lease_is_taken_over_at_once(real_cluster: RealCluster, lease_api: RestKubeApi) -> None:
    clock = ManualClock(1_000_000.0)
    a, b = electors(lease_api, clock, real_cluster.lease)
    a.tick()
    b.tick()
    a.release()
    clock.advance(2.0)

    assert not a.leading()
    assert b.tick()
    assert real_lease(lease_api, real_cluster).holder == "b"


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


def test_a_renew_deadline_longer_than_the_lease_is_refused() -> None:
    with pytest.raises(SpecError, match="--renew-deadline"):
        LeaderElector(FakeKubeApi(), "l", "ns", "a", ManualClock(), lease_duration=5, renew_deadline=6)


class Recording(FakeKubeApi):
    """Keeps the ``timeout`` each pod patch was sent with."""

    def __init__(self) -> None:
        super().__init__()
        self.timeouts: list[float | None] = []

    def patch(self, *args: Any, **kwargs: Any) -> dict[str, Any]:  # type: ignore[override]
        self.timeouts.append(kwargs.get("timeout"))
        return super().patch(*args, **kwargs)  # type: ignore[no-any-return]


def fenced(api: FakeKubeApi, elector: LeaderElector) -> FencedKubeApi:
    term = elector.current_term()
    assert term is not None
    return FencedKubeApi(api, elector.fence(term))


def touch(api: KubeApi) -> None:
    api.patch(PODS, "p0", {"metadata": {"labels": {"touched": "yes"}}}, "default")


def test_no_write_is_sent_once_the_renew_deadline_passed() -> None:
    api, clock = FakeKubeApi(), ManualClock(1_000_000.0)
    api.put(PODS, pod_object("p0", "default"))
    a, _ = electors(api, clock)
    a.tick()
    writes = fenced(api, a)
    clock.advance(9.0)
    touch(writes)
    clock.advance(2.0)  # 11 s since the last renewal began: past the 10 s deadline
    with pytest.raises(NotLeaderError, match="no longer holds the lease"):
        touch(writes)
    assert api.calls.count(("patch", "pods")) == 1


def test_a_write_gives_the_server_until_halfway_between_the_deadline_and_the_lease_expiry() -> None:
    api, clock = Recording(), ManualClock(1_000_000.0)
    api.put(PODS, pod_object("p0", "default"))
    a, _ = electors(api, clock)
    a.tick()
    writes = fenced(api, a)
    touch(writes)
    clock.advance(4.0)
    touch(writes)
    assert api.timeouts == [12.5, 8.5]  # (10 s deadline + 15 s lease) / 2 after the renewal began


def test_the_writes_of_an_ended_term_stay_fenced_off_in_the_next() -> None:
    api, clock = FakeKubeApi(), ManualClock(1_000_000.0)
    api.put(PODS, pod_object("p0", "default"))
    a, b = electors(api, clock)
    a.tick()
    b.tick()
    first = fenced(api, a)
    clock.advance(16.0)  # a was stopped: b takes over, then lets the lease lapse
    assert b.tick() and not a.tick()
    clock.advance(16.0)
    assert a.tick()  # a leads again, in a new term
    with pytest.raises(NotLeaderError):
        touch(first)
    touch(fenced(api, a))


class SlowReplica:
    """Replica a's view of the API: each of its calls reaches the server ``seconds`` of the
    shared manual clock after it was made; meanwhile the other replica ticks once a second."""

    def __init__(self, api: FakeKubeApi, clock: ManualClock) -> None:
        self.api, self.clock, self.seconds = api, clock, 0
        self.meanwhile: list[Callable[[], None]] = []

    def _wait(self) -> None:
        for _ in range(self.seconds):
            self.clock.advance(1.0)
            for other in self.meanwhile:
                other()

    def get(self, *args: Any, **kwargs: Any) -> dict[str, Any]:
        self._wait()
        return self.api.get(*args, **kwargs)

    def create(self, *args: Any, **kwargs: Any) -> dict[str, Any]:
        self._wait()
        return self.api.create(*args, **kwargs)

    def replace(self, *args: Any, **kwargs: Any) -> dict[str, Any]:
        self._wait()
        return self.api.replace(*args, **kwargs)


def test_a_leader_whose_renewals_are_too_slow_to_count_lets_another_take_over() -> None:
    api, clock = FakeKubeApi(), ManualClock(1_000_000.0)
    slow = SlowReplica(api, clock)
    a = LeaderElector(slow, "toposched", "toposched-system", "a", clock)  # type: ignore[arg-type]
    b = LeaderElector(api, "toposched", "toposched-system", "b", clock)
    leaders: list[set[str]] = []

    def b_ticks() -> None:
        b_leads = b.tick()
        leaders.append({n for n, on in (("a", a.leading()), ("b", b_leads)) if on})

    slow.meanwhile.append(b_ticks)
    assert a.tick()
    clock.advance(1.0)
    slow.seconds = 6  # from now on a renewal (a get and a replace) takes 12 s: over the 10 s deadline
    for _ in range(8):
        a.tick()
        clock.advance(1.0)
        b_ticks()
    assert all(len(now) <= 1 for now in leaders)
    assert leaders[-1] == {"b"}
    assert holder(api) == "b"
