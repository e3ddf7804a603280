"""The registry picks the kube front end for scheduling.k8s.io objects, Jobs with
``spec.scheduling`` and Pods naming a PodGroup; Kueue keeps its Jobs."""

from __future__ import annotations

from tests.frontends.kube.docs import job, pod_group, pods

from toposched.frontends.registry import default_registry


def chosen(documents: list[object]) -> str:
    return default_registry().choose(documents).name


def test_scheduling_objects_and_linked_pods_are_kube() -> None:
    assert chosen([pod_group("g"), *pods("g", 1)]) == "kube"
    assert chosen(pods("g", 2)) == "kube"


def test_job_with_scheduling_is_kube_and_plain_job_is_kueue() -> None:
    assert chosen([job(scheduling={"schedulingPolicy": {"gang": {}}})]) == "kube"
    assert chosen([job()]) == "kueue"


def test_kueue_queued_job_with_scheduling_stays_kueue() -> None:
    queued = job(scheduling={"schedulingPolicy": {"gang": {}}}, **{"kueue.x-k8s.io/queue-name": "q"})
    assert chosen([queued]) == "kueue"


def test_hint_names_the_front_end_or_its_kinds() -> None:
    registry = default_registry()
    assert registry.choose([job()], hint="kube").name == "kube"
    assert registry.choose([pod_group("g")], hint="Workload").name == "kube"
    assert registry.choose([pod_group("g")], hint="PodGroup").name == "kube"
