"""Node health from the cluster: the service's rules (NotReady past the grace period, deletion,
NoExecute taints) applied to ungated gangs. A replaced pod is deleted so its owner recreates it
(gated); the new pod takes the moved slot. An evicted gang's pods are deleted and its workload
cancelled; the recreated pods form the gang again and are placed afresh."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from tests.controller.cluster import HOST, RACK, bind, cluster, controller, kueue_pod, node, pod
from tests.controller.fake_kube import FakeKubeApi

from toposched.controller.keys import is_gated
from toposched.controller.kubeapi import NODES, PODS
from toposched.controller.ungating import UngaterController
from toposched.model import Taint, TaintEffect
from toposched.scheduler import ManualClock


def settle(ctl: UngaterController, steps: int = 3) -> None:
    for _ in range(steps):
        ctl.step()


def placed(api: FakeKubeApi, names: list[str]) -> dict[str, str]:
    """Pod -> the hostname its selector pins it to (ungated pods only)."""
    return {n: pod(api, n)["spec"]["nodeSelector"][HOST] for n in names if not is_gated(pod(api, n))}


def running_gang(count: int) -> tuple[FakeKubeApi, ManualClock, UngaterController, dict[str, str]]:
    api, clock = cluster(), ManualClock(1000.0)
    ctl = controller(api, clock)
    names = [f"p{i}" for i in range(count)]
    for name in names:
        api.put(PODS, kueue_pod(name, total=count))
    settle(ctl)
    for name in names:
        bind(api, name)
    settle(ctl)
    return api, clock, ctl, placed(api, names)


def not_ready(api: FakeKubeApi, host: str) -> None:
    api.put(NODES, node(int(host[1:]), ready=False))


def deleted(api: FakeKubeApi, host: str) -> None:
    api.remove(NODES, host)


def no_execute(api: FakeKubeApi, host: str) -> None:
    api.put(NODES, node(int(host[1:]), taints=(Taint("maintenance", "", TaintEffect.NO_EXECUTE),)))


FAILURES: dict[str, tuple[Callable[[FakeKubeApi, str], None], float]] = {
    "NotReady past the grace period": (not_ready, 31.0),
    "deleted": (deleted, 0.0),
    "NoExecute taint": (no_execute, 0.0),
}


@pytest.mark.parametrize("failure", FAILURES)
def test_a_failed_node_is_replaced_inside_the_assigned_rack(failure: str) -> None:
    api, clock, ctl, where = running_gang(2)
    rack = ctl.scheduler.store.get_node(where["p0"]).labels[RACK]
    fail, wait = FAILURES[failure]
    fail(api, where["p0"])
    first = ctl.step()
    clock.advance(wait)
    second = ctl.step()
    assert first.cycle.replaced + second.cycle.replaced == (1,)
    assert wait == 0 or first.cycle.replaced == ()  # NotReady waits out the grace period
    assert ("default", "p0") not in {(k[1], k[2]) for k in api.objects if k[0] == "pods"}  # deleted
    api.put(PODS, kueue_pod("p0-again"))  # its owner recreates it, gated
    settle(ctl)
    new_host = placed(api, ["p0-again"])["p0-again"]
    assert new_host not in (where["p0"], where["p1"])
    assert ctl.scheduler.store.get_node(new_host).labels[RACK] == rack
    assert placed(api, ["p1"]) == {"p1": where["p1"]}  # the healthy pod stays


def test_a_gang_that_cannot_be_repaired_is_evicted_and_placed_again_when_recreated() -> None:
    api, clock, ctl, where = running_gang(3)  # fills one rack: no spare node in it
    first_rack = ctl.scheduler.store.get_node(where["p0"]).labels[RACK]
    not_ready(api, where["p0"])
    ctl.step()
    clock.advance(31.0)
    report = ctl.step()
    assert report.cycle.evicted == (1,)
    settle(ctl, 1)
    assert not any(k[0] == "pods" for k in api.objects)  # every pod deleted for its owner to recreate
    assert ctl.scheduler.list() == []  # cancelled, and forgotten as the controller's store keeps no history
    names = [f"q{i}" for i in range(3)]
    for name in names:
        api.put(PODS, kueue_pod(name, total=3))
    clock.advance(120.0)
    settle(ctl)
    again = placed(api, names)
    assert len(again) == 3
    assert {ctl.scheduler.store.get_node(h).labels[RACK] for h in again.values()} != {first_rack}


def test_a_short_not_ready_spell_changes_nothing() -> None:
    api, clock, ctl, where = running_gang(2)
    not_ready(api, where["p0"])
    ctl.step()
    clock.advance(10.0)
    api.put(NODES, node(int(where["p0"][1:])))
    settle(ctl)
    clock.advance(60.0)
    settle(ctl)
    assert placed(api, ["p0", "p1"]) == where


def test_a_restart_in_the_middle_of_a_repair_starts_the_gang_over() -> None:
    api, clock, ctl, where = running_gang(2)
    deleted(api, where["p0"])
    ctl.step()  # replaced; p0 deleted for its owner to recreate
    assert ctl.ungater.workloads
    again = controller(api, clock)  # the controller restarts before p0 is back
    report = again.step()
    assert report.restored == ()
    assert not any(k[0] == "pods" for k in api.objects)  # p1 deleted too: the gang starts over
    for name in ("p0", "p1"):
        api.put(PODS, kueue_pod(name))
    clock.advance(120.0)
    settle(again)
    assert len(placed(api, ["p0", "p1"])) == 2
