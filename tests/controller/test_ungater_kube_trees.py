"""``--mode ungater`` for CompositePodGroup trees (``scheduling.k8s.io/v1alpha3``): the pods of
every PodGroup under one root CompositePodGroup are one gang, whole once the root exists, each
PodGroup has its ``minCount`` pods and each gang CompositePodGroup its ``minGroupCount``
children; it is placed as one unit, recorded and ungated, and a restart assigns no pod twice. On
the in-memory ``FakeKubeApi`` (the ungater's own logic); on the real API server:
``test_real_ungater``."""

from __future__ import annotations

import contextlib

from tests.controller.cluster import (
    HOST,
    RACK,
    bind,
    cluster,
    controller,
    kube_child,
    kube_composite,
    kube_pod,
    pod,
    records_read,
)
from tests.controller.fake_kube import FakeKubeApi
from tests.controller.test_ungater import FailingAfter, patches

from toposched.controller.keys import is_gated
from toposched.controller.kubeapi import (
    KUBE_COMPOSITE_PODGROUPS,
    KUBE_PODGROUPS_V1ALPHA3,
    KUBE_WORKLOADS,
    PODS,
    KubeApiError,
)
from toposched.controller.records import record_of
from toposched.controller.ungater_controller import UngaterController
from toposched.store import WorkloadState
from toposched.wire.scheduling import PodGroupTemplate, Workload

WORKERS = ("w0", "w1", "w2")
PODS_OF_TREE = ("l0", *WORKERS)


def leader_and_workers(
    api: FakeKubeApi, *, leader_group: bool = True, pods: tuple[str, ...] = PODS_OF_TREE
) -> None:
    """CompositePodGroup ``train`` (gang of 2 groups, one rack) over PodGroups ``leader`` (1 pod)
    and ``workers`` (3 pods), 4 GPUs a pod: together they fit one rack's 24 GPUs."""
    api.put(KUBE_COMPOSITE_PODGROUPS, kube_composite())
    api.put(KUBE_PODGROUPS_V1ALPHA3, kube_child("workers", "train", 3))
    if leader_group:
        api.put(KUBE_PODGROUPS_V1ALPHA3, kube_child("leader", "train", 1))
    for name in pods:
        api.put(PODS, kube_pod(name, "leader" if name == "l0" else "workers", gpus=4))


def steps(ctl: UngaterController, n: int = 3) -> None:
    for _ in range(n):
        ctl.step()


def test_a_leader_and_workers_tree_is_placed_in_one_rack_and_ungated_as_one_gang() -> None:
    api = cluster()
    ctl = controller(api)
    leader_and_workers(api)
    template = PodGroupTemplate("workers", min_count=3)
    api.put(KUBE_WORKLOADS, Workload("train", pod_groups=(template,)).to_object())  # compiled with the tree
    steps(ctl)
    pods = [pod(api, n) for n in PODS_OF_TREE]
    assert not any(is_gated(p) for p in pods)
    hosts = [p["spec"]["nodeSelector"][HOST] for p in pods]
    assert len({ctl.scheduler.store.get_node(h).labels[RACK] for h in hosts}) == 1
    assert {record_of(p).gang for p in pods if record_of(p) is not None} == {"kube-composite:default/train"}
    assert patches(api) == 4  # one write per pod
    assert len(ctl.scheduler.list()) == 1  # one gang, not one per PodGroup


def test_a_tree_is_not_whole_until_the_last_podgroups_pods_exist() -> None:
    api = cluster()
    ctl = controller(api)
    leader_and_workers(api, pods=WORKERS)  # the leader PodGroup has 0 of its 1 pod
    steps(ctl)
    assert patches(api) == 0
    assert ctl.scheduler.list() == []  # the workers PodGroup is not placed on its own
    api.put(PODS, kube_pod("l0", "leader", gpus=4))
    steps(ctl)
    assert not any(is_gated(pod(api, n)) for n in PODS_OF_TREE)


def test_a_gang_composite_waits_for_min_group_count_children() -> None:
    api = cluster()
    ctl = controller(api)
    leader_and_workers(api, leader_group=False)  # 1 of minGroupCount 2 PodGroups
    steps(ctl)
    assert patches(api) == 0
    assert ctl.scheduler.list() == []
    api.put(KUBE_PODGROUPS_V1ALPHA3, kube_child("leader", "train", 1))
    steps(ctl)
    assert not any(is_gated(pod(api, n)) for n in PODS_OF_TREE)


def test_podgroups_whose_root_does_not_exist_yet_wait_for_it() -> None:
    api = cluster()
    ctl = controller(api)
    leader_and_workers(api)
    api.remove(KUBE_COMPOSITE_PODGROUPS, "train", "default")
    steps(ctl)
    assert patches(api) == 0
    api.put(KUBE_COMPOSITE_PODGROUPS, kube_composite())
    steps(ctl)
    assert not any(is_gated(pod(api, n)) for n in PODS_OF_TREE)


def test_a_restart_in_the_middle_of_ungating_a_tree_never_assigns_a_pod_twice() -> None:
    api = FailingAfter()
    donor = cluster()
    api.objects, api.events, api.version = donor.objects, donor.events, donor.version
    leader_and_workers(api)
    first = controller(api)
    api.allowed = 1  # the first pod's write goes through, then the process dies
    with contextlib.suppress(KubeApiError):
        first.step()
    names = PODS_OF_TREE
    recorded = records_read([pod(api, n) for n in names])  # the first pod's write records them all
    assert all(r is not None for r in recorded.values())
    ungated = [n for n in names if not is_gated(pod(api, n))]
    assert len(ungated) == 1
    bind(api, ungated[0])

    api.allowed = 1_000
    second = controller(api)  # a fresh process: empty scheduler, same cluster
    assert second.step().restored == ("kube-composite:default/train",)
    steps(second, 2)
    assert {n: record_of(pod(api, n)) for n in PODS_OF_TREE} == recorded  # nobody was assigned again
    for name, record in recorded.items():
        assert record is not None
        assert pod(api, name)["spec"]["nodeSelector"][HOST] == record.node
    (workload,) = second.scheduler.list()
    assert workload.state in (WorkloadState.ADMITTED, WorkloadState.RUNNING)
