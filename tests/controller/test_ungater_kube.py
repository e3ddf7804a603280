"""``--mode ungater`` for upstream Kubernetes gangs (``scheduling.k8s.io`` PodGroups): a gang is
whole once its PodGroup exists with at least ``minCount`` pods, whichever appears first; it is
placed, recorded and ungated as the Kueue and KAI gangs are, and a restart assigns no pod twice; a
pod on a node without a hostname label is pinned by the node's name. On the in-memory
``FakeKubeApi`` (the ungater's own logic); on the real API server: ``test_real_ungater``,
``test_real_pinning``."""

from __future__ import annotations

import contextlib

from tests.controller.cluster import (
    HOST,
    RACK,
    bind,
    cluster,
    controller,
    kube_pod,
    kube_podgroup,
    node,
    pod,
    records_read,
)
from tests.controller.fake_kube import FakeKubeApi
from tests.controller.test_ungater import FailingAfter, patches

from toposched.controller.grouping import PodGrouper
from toposched.controller.keys import is_gated
from toposched.controller.kubeapi import KUBE_PODGROUPS, KUBE_WORKLOADS, NODES, PODS, KubeApiError
from toposched.controller.records import record_of
from toposched.frontends.kube.gang import all_nodes
from toposched.store import WorkloadState
from toposched.wire.scheduling import PodGroupTemplate, Workload

WORKERS = ("w0", "w1", "w2")


def test_a_podgroup_appearing_after_its_pods_is_placed_in_one_rack_and_ungated() -> None:
    api = cluster()
    ctl = controller(api)
    for name in WORKERS:
        api.put(PODS, kube_pod(name))
    for _ in range(2):
        ctl.step()
    assert patches(api) == 0  # the pods wait for their PodGroup
    assert ctl.scheduler.list() == []
    api.put(KUBE_PODGROUPS, kube_podgroup(min_count=3))
    for _ in range(3):
        ctl.step()
    pods = [pod(api, n) for n in WORKERS]
    assert not any(is_gated(p) for p in pods)
    hosts = [p["spec"]["nodeSelector"][HOST] for p in pods]
    assert len(set(hosts)) == 3
    assert len({ctl.scheduler.store.get_node(h).labels[RACK] for h in hosts}) == 1
    assert patches(api) == 3  # one write per pod
    (workload,) = ctl.scheduler.list()
    assert workload.kind == "PodGroup"


def test_fewer_than_min_count_pods_place_nothing() -> None:
    api = cluster()
    ctl = controller(api)
    api.put(KUBE_PODGROUPS, kube_podgroup(min_count=3))
    for name in WORKERS[:2]:
        api.put(PODS, kube_pod(name))
    for _ in range(3):
        ctl.step()
    assert patches(api) == 0
    assert ctl.scheduler.list() == []
    api.put(PODS, kube_pod(WORKERS[2]))
    for _ in range(3):
        ctl.step()
    assert not any(is_gated(pod(api, n)) for n in WORKERS)


def test_a_basic_podgroup_is_whole_with_one_pod() -> None:
    api = cluster()
    ctl = controller(api)
    api.put(KUBE_PODGROUPS, kube_podgroup("solo", min_count=None))
    api.put(PODS, kube_pod("s0", "solo"))
    for _ in range(3):
        ctl.step()
    assert not is_gated(pod(api, "s0"))


def test_pods_naming_a_workload_template_wait_for_the_workload() -> None:
    api = cluster()
    ctl = controller(api)
    for name in ("w0", "w1"):
        linked = kube_pod(name)
        del linked["spec"]["schedulingGroup"]
        linked["spec"]["workloadRef"] = {"name": "train", "podGroup": "workers"}  # Kubernetes 1.35
        api.put(PODS, linked)
    for _ in range(2):
        ctl.step()
    assert patches(api) == 0
    template = PodGroupTemplate("workers", min_count=2, key=RACK)
    api.put(KUBE_WORKLOADS, Workload("train", pod_groups=(template,)).to_object())
    for _ in range(3):
        ctl.step()
    hosts = [pod(api, n)["spec"]["nodeSelector"][HOST] for n in ("w0", "w1")]
    assert len({ctl.scheduler.store.get_node(h).labels[RACK] for h in hosts}) == 1


def test_a_restart_in_the_middle_of_ungating_a_podgroup_never_assigns_a_pod_twice() -> None:
    api = FailingAfter()
    donor = cluster()
    api.objects, api.events, api.version = donor.objects, donor.events, donor.version
    api.put(KUBE_PODGROUPS, kube_podgroup(min_count=3))
    for name in WORKERS:
        api.put(PODS, kube_pod(name))
    first = controller(api)
    api.allowed = 1  # the first pod's write goes through, then the process dies
    with contextlib.suppress(KubeApiError):
        first.step()
    names = WORKERS
    recorded = records_read([pod(api, n) for n in names])  # the first pod's write records them all
    assert all(r is not None for r in recorded.values())
    ungated = [n for n in names if not is_gated(pod(api, n))]
    assert len(ungated) == 1
    bind(api, ungated[0])

    api.allowed = 1_000
    second = controller(api)  # a fresh process: empty scheduler, same cluster
    report = second.step()
    assert report.restored == ("kube:default/workers",)
    for _ in range(2):
        second.step()
    assert {n: record_of(pod(api, n)) for n in WORKERS} == recorded  # nobody was assigned again
    for name, record in recorded.items():
        assert record is not None
        assert pod(api, name)["spec"]["nodeSelector"][HOST] == record.node
    (workload,) = second.scheduler.list()
    assert workload.state in (WorkloadState.ADMITTED, WorkloadState.RUNNING)


def test_a_pod_on_a_node_without_a_hostname_label_is_pinned_by_the_nodes_name() -> None:
    api = FakeKubeApi()
    for i in range(2):
        plain = node(i)
        del plain["metadata"]["labels"][HOST]  # every node is a candidate: the node level is its name
        api.put(NODES, plain)
    for name in ("w0", "w1"):
        api.put(PODS, kube_pod(name))
    api.put(KUBE_PODGROUPS, kube_podgroup(min_count=2, key=None))
    ctl = controller(api, topology="default")  # named, but not in the cluster: the gang brings its own
    for _ in range(3):
        ctl.step()
    pods = {n: pod(api, n) for n in ("w0", "w1")}
    again = controller(api)
    report = again.step()
    memberships = again.scheduler.registry.memberships
    grouping = (again.podgroups, again.kube_podgroups, again.kube_workloads, again.kube_composites)
    (gang,) = PodGrouper().group(again.pods.objects.values(), grouping, [], memberships).values()

    assert not any(is_gated(p) for p in pods.values())
    assert all(HOST not in p["spec"].get("nodeSelector", {}) for p in pods.values())
    pins = {
        n: p["spec"]["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
        for n, p in pods.items()
    }
    assert pins == {
        n: {
            "nodeSelectorTerms": [
                {"matchFields": [{"key": "metadata.name", "operator": "In", "values": [r.node]}]}
            ]
        }
        for n, p in pods.items()
        if (r := record_of(p)) is not None
    }
    assert report.restored == ("kube:default/workers",)
    assert all("affinity" not in d.get("spec", {}) for d in gang.documents(all_nodes()) if d["kind"] == "Pod")
