"""How pods and groups find each other: ``spec.schedulingGroup`` (1.36+), the 1.35
``spec.workloadRef``, v1alpha2's template reference, PodGroups without a Workload."""

from __future__ import annotations

from typing import Any

from tests.frontends.kube.docs import RACK, gang, pod_group, pods, workload

from toposched.frontends.kube import load_kube
from toposched.model.node import NODE_LEVEL

V1ALPHA2 = "scheduling.k8s.io/v1alpha2"


def workload_ref_pods(workload_name: str, group: str, count: int) -> list[dict[str, Any]]:
    members = pods("unused", count, prefix=group)
    for pod in members:
        pod["spec"].pop("schedulingGroup")
        pod["spec"]["workloadRef"] = {"name": workload_name, "podGroup": group}
    return members


def test_workload_ref_pods_join_the_podgroup_stamped_from_their_template() -> None:
    docs = [
        workload("w", [{"name": "workers", "schedulingPolicy": gang(2)}]),
        pod_group("w-workers", policy=gang(2), workloadRef={"workloadName": "w", "templateName": "workers"}),
        *workload_ref_pods("w", "workers", 2),
    ]
    (group,) = load_kube(docs).gang.root.children
    assert (group.name, len(group.pods)) == ("w-workers", 2)


def test_workload_ref_pods_without_podgroup_use_the_template() -> None:
    docs = [
        workload(
            "w",
            [
                {
                    "name": "workers",
                    "schedulingPolicy": gang(2),
                    "schedulingConstraints": {"topology": [{"key": RACK}]},
                }
            ],
        ),
        *workload_ref_pods("w", "workers", 2),
    ]
    loaded = load_kube(docs)
    (group,) = loaded.gang.root.children
    assert (group.name, group.required, group.min_member) == ("w-workers", RACK, 2)
    assert "spec.workloadRef (Kubernetes 1.35)" in loaded.warnings[0]


def test_v1alpha2_podgroup_with_template_ref() -> None:
    ref = {"workload": {"workloadName": "w", "podGroupTemplateName": "t"}}
    docs = [
        pod_group("g", V1ALPHA2, policy=gang(1), podGroupTemplateRef=ref, disruptionMode="PodGroup"),
        *pods("g", 1),
    ]
    (group,) = load_kube(docs).gang.root.children
    assert group.name == "g"
    assert load_kube(docs).gang.name == "g"  # no Workload: the PodGroup names the gang


def test_podgroups_without_workload_are_named_by_the_first() -> None:
    docs = [pod_group("a"), pod_group("b"), *pods("b", 1), *pods("a", 1)]
    gang_ = load_kube(docs).gang
    assert gang_.name == "a" and gang_.kind == "PodGroup"
    assert [g.name for g in gang_.root.children] == ["a", "b"]


def test_an_unconstrained_input_is_on_every_node() -> None:
    loaded = load_kube([pod_group("g"), *pods("g", 1)])
    (every,) = loaded.topologies
    assert every.levels == (NODE_LEVEL,)
    assert loaded.gang.topology == every.name


def test_each_key_goes_per_group() -> None:
    docs = [pod_group("a", key=RACK), pod_group("b", key="example.com/block"), *pods("a", 1), *pods("b", 1)]
    loaded = load_kube(docs)
    _, rack, block = loaded.topologies
    assert [(g.name, g.topology) for g in loaded.gang.root.children] == [("a", rack.name), ("b", block.name)]
    assert (rack.levels, block.levels) == ((RACK,), ("example.com/block",))
