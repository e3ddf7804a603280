"""The Kueue seed's second pass: a gang that arrives while its nodes are still being provisioned
gets its assignment once the nodes exist and are Ready, and not before."""

from __future__ import annotations

from tests.controller.cluster import HOST, bind, cluster, controller, kueue_pod, node, pod

from toposched.controller.keys import is_gated
from toposched.controller.kubeapi import NODES, PODS
from toposched.scheduler import ManualClock
from toposched.store import WorkloadState


def test_a_gang_waits_for_provisioned_nodes_to_become_ready() -> None:
    api, clock = cluster(nodes=0), ManualClock(1000.0)
    ctl = controller(api, clock)
    for name in ("p0", "p1"):
        api.put(PODS, kueue_pod(name))
    ctl.step()
    (workload,) = ctl.scheduler.list()
    assert workload.state is WorkloadState.PENDING
    for i in (0, 1):
        api.put(NODES, node(i, ready=False))  # provisioned, not Ready yet
    for _ in range(2):
        clock.advance(120.0)
        ctl.step()
    assert is_gated(pod(api, "p0")) and is_gated(pod(api, "p1"))
    for i in (0, 1):
        api.put(NODES, node(i))
    for _ in range(3):
        clock.advance(120.0)
        ctl.step()
    hosts = {pod(api, n)["spec"]["nodeSelector"][HOST] for n in ("p0", "p1")}
    assert hosts == {"n0", "n1"}
    for name in ("p0", "p1"):
        bind(api, name)
    ctl.step()
    assert ctl.scheduler.get(workload.id).state is WorkloadState.RUNNING
