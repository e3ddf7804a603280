"""The ungater on the real API server when things go wrong: it dies in the middle of ungating and
a new process takes over (no pod is assigned twice); a node of a running gang goes NotReady past
the grace period or gets a NoExecute taint (the pod there is replaced inside the gang's rack, or
the whole gang evicted when the rack has no room); the gang's nodes appear only after it does
(the delayed topology request). Nodes: racks of three (see ``real_cluster``), 8 GPUs each."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from tests.controller.cluster import kueue_pod, records_read
from tests.controller.real_cluster import HOST, RACK, ZONE, ControllerAccounts, RealCluster
from tests.controller.real_steps import settle, ungater

from toposched.controller.keys import is_gated
from toposched.controller.kubeapi import PODS, KubeApiError, Resource
from toposched.controller.records import record_of
from toposched.controller.ungater_controller import UngaterController
from toposched.model import NotFoundError, Taint, TaintEffect
from toposched.scheduler import ManualClock
from toposched.store import WorkloadState


class Dying:
    """A hook that lets ``budget`` pod patches through, then fails every write as a process
    that died would make none."""

    def __init__(self, budget: int = 1_000) -> None:
        self.budget = budget

    def __call__(self, verb: str, resource: Resource, name: str) -> None:
        if self.budget <= 0:
            raise KubeApiError(503, "the controller process died")
        if resource == PODS:
            self.budget -= 1


def host_of(cluster: RealCluster, name: str) -> str:
    return str(cluster.pod(name)["spec"]["nodeSelector"][HOST])


def test_a_restart_in_the_middle_of_ungating_assigns_no_pod_twice(
    real_cluster: RealCluster, controller_accounts: ControllerAccounts
) -> None:
    real_cluster.add_racks()
    names = [f"p{i}" for i in range(4)]
    for name in names:
        real_cluster.create(PODS, kueue_pod(name, total=4, level=ZONE))
    dying = Dying(budget=1)  # the first pod's write goes through, then the process dies
    with ungater(real_cluster, controller_accounts, hook=dying) as first:
        settle(first, lambda: any(not is_gated(real_cluster.pod(n)) for n in names), what="one pod written")
        first.step()
    recorded = records_read([real_cluster.pod(n) for n in names])  # the first pod's write records them all
    assert all(recorded.values())
    (alone,) = [n for n in names if not is_gated(real_cluster.pod(n))]
    real_cluster.bind(alone)

    with ungater(real_cluster, controller_accounts) as second:  # a new process: empty scheduler
        report = second.step()
        settle(second, lambda: real_cluster.ungated(names), what="the rest are ungated")
        (workload,) = second.scheduler.list()

    assert report.restored == (f"kueue:{real_cluster.namespace}/g",)
    assert {n: record_of(real_cluster.pod(n)) for n in names} == recorded  # nobody assigned again
    assert all(host_of(real_cluster, n) == r.node for n, r in recorded.items() if r is not None)
    assert workload.state in (WorkloadState.ADMITTED, WorkloadState.RUNNING)


def running_gang(cluster: RealCluster, ctl: UngaterController, count: int) -> dict[str, str]:
    """A gang of ``count`` whole-node pods requiring one rack, placed, bound and Running."""
    names = [f"p{i}" for i in range(count)]
    for name in names:
        cluster.create(PODS, kueue_pod(name, total=count, level=RACK))
    settle(ctl, lambda: cluster.ungated(names), what="the gang is ungated")
    where = {n: cluster.bind(n) for n in names}
    settle(ctl, lambda: ctl.scheduler.list()[0].state is WorkloadState.RUNNING, what="the gang runs")
    return where


def not_ready(cluster: RealCluster, i: int) -> None:
    cluster.set_node(i, ready=False)


def no_execute(cluster: RealCluster, i: int) -> None:
    cluster.set_node(i, taints=(Taint("maintenance", "", TaintEffect.NO_EXECUTE),))


def deleted(cluster: RealCluster, i: int) -> None:
    cluster.delete_node(i)  # its pods stay bound to it: no pod garbage collector runs here


FAILURES: dict[str, tuple[Callable[[RealCluster, int], None], float]] = {
    "NotReady past the grace period": (not_ready, 31.0),
    "NoExecute taint": (no_execute, 0.0),
    "deleted": (deleted, 0.0),
}


def failed_in(ctl: UngaterController, node: str) -> bool:
    """Whether the scheduler has seen ``node`` fail (NotReady, tainted or gone)."""
    try:
        seen = ctl.scheduler.store.get_node(node)
    except NotFoundError:
        return True
    return not seen.ready or bool(seen.taints)


def node_index(cluster: RealCluster, name: str) -> int:
    return next(i for i in range(64) if cluster.node_name(i) == name)


@pytest.mark.parametrize("failure", FAILURES)
def test_a_failed_node_is_replaced_inside_the_gangs_rack(
    real_cluster: RealCluster, controller_accounts: ControllerAccounts, failure: str
) -> None:
    real_cluster.add_racks()
    clock = ManualClock(1000.0)
    with ungater(real_cluster, controller_accounts, clock) as ctl:
        where = running_gang(real_cluster, ctl, 2)
        rack = real_cluster.racks_of([real_cluster.pod("p0")])
        fail, grace = FAILURES[failure]
        fail(real_cluster, node_index(real_cluster, where["p0"]))
        seen = settle(ctl, lambda: failed_in(ctl, where["p0"]), what="the scheduler sees the failure")
        clock.advance(grace)
        reports = seen + settle(
            ctl,
            lambda: "deletionTimestamp" in real_cluster.pod("p0")["metadata"],
            what="p0 is deleted for its owner to recreate",
        )
        real_cluster.finish("p0")  # the kubelet stops it
        real_cluster.create(PODS, kueue_pod("p0-again", total=2, level=RACK))  # its owner recreates it
        settle(ctl, lambda: real_cluster.ungated(["p0-again"]), what="the new pod takes the moved slot")

    assert sum(len(r.cycle.replaced) for r in reports) == 1
    assert grace == 0 or not any(r.cycle.replaced for r in seen)  # NotReady waits out the grace period
    assert host_of(real_cluster, "p0-again") not in where.values()
    assert real_cluster.racks_of([real_cluster.pod("p0-again")]) == rack
    assert host_of(real_cluster, "p1") == where["p1"]  # the healthy pod stays


def test_a_gang_that_cannot_be_repaired_is_evicted_and_placed_again_when_recreated(
    real_cluster: RealCluster, controller_accounts: ControllerAccounts
) -> None:
    real_cluster.add_racks()
    clock = ManualClock(1000.0)
    with ungater(real_cluster, controller_accounts, clock) as ctl:
        where = running_gang(real_cluster, ctl, 3)  # fills one rack: no spare node in it
        first_rack = real_cluster.racks_of([real_cluster.pod("p0")])
        not_ready(real_cluster, node_index(real_cluster, where["p0"]))
        settle(ctl, lambda: failed_in(ctl, where["p0"]), what="the scheduler sees the failure")
        clock.advance(31.0)
        reports = settle(
            ctl,
            lambda: all("deletionTimestamp" in real_cluster.pod(n)["metadata"] for n in where),
            what="every pod of the gang is deleted for its owner to recreate",
        )
        cancelled = ctl.scheduler.list()
        for name in where:
            real_cluster.finish(name)
        again = [f"q{i}" for i in range(3)]
        for name in again:
            real_cluster.create(PODS, kueue_pod(name, total=3, level=RACK))
        clock.advance(120.0)
        settle(ctl, lambda: real_cluster.ungated(again), what="the recreated gang is placed")

    assert [r.cycle.evicted for r in reports if r.cycle.evicted] == [(1,)]
    assert cancelled == []  # cancelled, and forgotten (the controller's store keeps no history)
    assert len(real_cluster.racks_of([real_cluster.pod(n) for n in again]) - first_rack) == 1


def test_a_gang_waits_for_its_nodes_to_be_provisioned_and_ready(
    real_cluster: RealCluster, controller_accounts: ControllerAccounts
) -> None:
    real_cluster.add_racks(nodes=0)
    clock = ManualClock(1000.0)
    names = ["p0", "p1"]
    with ungater(real_cluster, controller_accounts, clock) as ctl:
        for name in names:
            real_cluster.create(PODS, kueue_pod(name, level=RACK))
        settle(ctl, lambda: bool(ctl.scheduler.list()), what="the gang is queued")
        (workload,) = ctl.scheduler.list()
        for i in (0, 1):
            real_cluster.add_node(i, ready=False)  # provisioned, not Ready yet
        for _ in range(2):
            clock.advance(120.0)
            ctl.step()
        waiting = [is_gated(real_cluster.pod(n)) for n in names]
        for i in (0, 1):
            real_cluster.set_node(i)
        clock.advance(120.0)
        settle(ctl, lambda: real_cluster.ungated(names), what="the gang is placed on the new nodes")
        for name in names:
            real_cluster.bind(name)
        settle(ctl, lambda: ctl.scheduler.get(workload.id).state is WorkloadState.RUNNING, what="it runs")

    assert workload.state is WorkloadState.PENDING
    assert waiting == [True, True]
    assert {host_of(real_cluster, n) for n in names} == {real_cluster.node_name(0), real_cluster.node_name(1)}


def test_a_short_not_ready_spell_changes_nothing(
    real_cluster: RealCluster, controller_accounts: ControllerAccounts
) -> None:
    real_cluster.add_racks()
    clock = ManualClock(1000.0)
    with ungater(real_cluster, controller_accounts, clock) as ctl:
        where = running_gang(real_cluster, ctl, 2)
        i = node_index(real_cluster, where["p0"])
        not_ready(real_cluster, i)
        reports = settle(ctl, lambda: failed_in(ctl, where["p0"]), what="the scheduler sees it NotReady")
        clock.advance(10.0)
        real_cluster.set_node(i)  # Ready again within the grace period
        reports += settle(ctl, lambda: not failed_in(ctl, where["p0"]), what="the scheduler sees it Ready")
        clock.advance(60.0)
        reports += [ctl.step(), ctl.step()]

    assert not any(r.cycle.replaced or r.cycle.evicted for r in reports)
    assert all("deletionTimestamp" not in real_cluster.pod(n)["metadata"] for n in where)
    assert {n: host_of(real_cluster, n) for n in where} == where


def test_a_restart_in_the_middle_of_a_repair_starts_the_gang_over(
    real_cluster: RealCluster, controller_accounts: ControllerAccounts
) -> None:
    real_cluster.add_racks()
    clock = ManualClock(1000.0)
    with ungater(real_cluster, controller_accounts, clock) as first:
        where = running_gang(real_cluster, first, 2)
        deleted(real_cluster, node_index(real_cluster, where["p0"]))
        settle(
            first, lambda: "deletionTimestamp" in real_cluster.pod("p0")["metadata"], what="p0 is replaced"
        )
    real_cluster.finish("p0")  # the controller stops before p0's owner recreates it
    with ungater(real_cluster, controller_accounts, clock) as again:
        report = again.step()
        settle(again, lambda: "deletionTimestamp" in real_cluster.pod("p1")["metadata"], what="p1 is evicted")
        real_cluster.finish("p1")
        for name in ("p0", "p1"):
            real_cluster.create(PODS, kueue_pod(name, level=RACK))
        clock.advance(120.0)
        settle(again, lambda: real_cluster.ungated(["p0", "p1"]), what="the gang is placed afresh")

    assert report.restored == ()
    assert real_cluster.nodes() and len({host_of(real_cluster, n) for n in ("p0", "p1")}) == 2
