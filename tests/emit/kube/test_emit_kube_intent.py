"""Any gang as kube objects: what each version writes, what kube cannot say, and every object
valid against the project's schemas."""

from __future__ import annotations

from typing import Any

import jsonschema  # type: ignore[import-untyped]  # no stubs among the test dependencies
import pytest
from tests.emit.kube.schemas import check

from toposched.emit.kube import compile_to_kube
from toposched.model import (
    Gang,
    Group,
    PodSpec,
    Resources,
    Semantics,
    SliceLayer,
    Topology,
    WorkloadSpecError,
)

RACK = "example.com/rack"
BLOCK = "example.com/block"
TOPOLOGY = Topology.create("t", [BLOCK, RACK, "kubernetes.io/hostname"], {"rack": RACK})
V1ALPHA2, V1ALPHA3, V1BETA1 = (f"scheduling.k8s.io/{v}" for v in ("v1alpha2", "v1alpha3", "v1beta1"))


def pods(prefix: str, count: int) -> tuple[PodSpec, ...]:
    return tuple(PodSpec(f"{prefix}-{i}", i, Resources({"nvidia.com/gpu": 4})) for i in range(count))


def kinds(objects: tuple[Any, ...]) -> list[str]:
    return [o["kind"] for o in objects if o["kind"] != "Pod"]


def leader_workers() -> Gang:
    """A Kueue-style PodSet group: leader and workers sharing one rack (alias ``rack``)."""
    leader = Group("leader", pods=pods("l", 1))
    workers = Group("workers", pods=pods("w", 3))
    return Gang(
        "serve",
        Group("serve", children=(Group("group", required="rack", children=(leader, workers)),)),
        namespace="ml",
    )


def test_one_leaf_is_a_workload_and_a_gang_podgroup() -> None:
    gang = Gang(
        "train", Group("train", children=(Group("main", required=RACK, pods=pods("p", 4)),)), namespace="ml"
    )
    translation = compile_to_kube(gang, TOPOLOGY)
    assert translation.target == "kube" and translation.unexpressed == ()
    workload, group, *members = translation.objects
    assert workload["spec"]["podGroupTemplates"] == [
        {
            "name": "main",
            "schedulingPolicy": {"gang": {"minCount": 4}},
            "schedulingConstraints": {"topology": [{"key": RACK}]},
        }
    ]
    assert group["metadata"] == {"name": "train-main", "namespace": "ml"}
    assert group["spec"]["workloadRef"] == {"workloadName": "train", "templateName": "main"}
    assert [p["spec"]["schedulingGroup"] for p in members] == [{"podGroupName": "train-main"}] * 4
    assert members[0]["spec"]["containers"][0]["resources"]["requests"] == {"nvidia.com/gpu": "4"}
    for obj in translation.objects:
        check(obj)


def test_v1alpha3_writes_composite_pod_groups_for_levels_above_a_podgroup() -> None:
    translation = compile_to_kube(leader_workers(), TOPOLOGY, api_version=V1ALPHA3)
    assert kinds(translation.objects) == ["Workload", "CompositePodGroup", "PodGroup", "PodGroup"]
    composite = translation.objects[1]
    assert composite["metadata"]["name"] == "serve-group"
    assert composite["spec"]["schedulingConstraints"] == {"topology": [{"key": RACK}]}  # alias resolved
    assert composite["spec"]["schedulingPolicy"] == {"gang": {"minGroupCount": 2}}
    assert {g["spec"]["parentCompositePodGroupName"] for g in translation.objects[2:4]} == {"serve-group"}
    assert translation.objects[0]["spec"]["compositePodGroupTemplates"][0]["name"] == "group"
    for obj in translation.objects:
        check(obj)


@pytest.mark.parametrize("version", [V1BETA1, V1ALPHA2])
def test_without_composites_the_shared_level_is_unexpressed(version: str) -> None:
    translation = compile_to_kube(leader_workers(), TOPOLOGY, api_version=version)
    assert kinds(translation.objects) == ["Workload", "PodGroup", "PodGroup"]
    assert any(
        "group group: its example.com/rack constraint over several groups needs a CompositePodGroup" in n
        for n in translation.unexpressed
    )
    assert any("places its 2 PodGroups independently" in n for n in translation.unexpressed)
    for obj in translation.objects:
        check(obj)


def test_v1alpha2_spells_the_template_reference_and_disruption_its_way() -> None:
    gang = Gang("train", Group("train", children=(Group("main", pods=pods("p", 2)),)))
    (_, group, *_) = compile_to_kube(gang, TOPOLOGY, api_version=V1ALPHA2).objects
    assert group["spec"]["podGroupTemplateRef"] == {
        "workload": {"workloadName": "train", "podGroupTemplateName": "main"}
    }


def test_preferred_levels_and_slices_are_unexpressed() -> None:
    main = Group("main", required=BLOCK, preferred=RACK, slices=(SliceLayer(RACK, 2),), pods=pods("p", 4))
    translation = compile_to_kube(Gang("j", Group("j", children=(main,))), TOPOLOGY)
    assert translation.unexpressed == (
        f"group main: kube-scheduler has no preferred constraint; {RACK} left out",
        "group main: kube-scheduler has no slices; every 2 pods in one rack left out",
    )
    assert translation.objects[1]["spec"]["schedulingConstraints"] == {"topology": [{"key": BLOCK}]}


def test_kube_gang_keeps_names_and_independent_groups() -> None:
    leader = Group("infer-leader", min_member=1, pods=pods("l", 1))
    workers = Group("infer-workers", required=RACK, min_member=2, pods=pods("w", 3))
    gang = Gang("infer", Group("infer", children=(leader, workers)), semantics=Semantics.KUBE)
    translation = compile_to_kube(gang, TOPOLOGY)
    assert translation.unexpressed == ()
    names = [o["metadata"]["name"] for o in translation.objects if o["kind"] == "PodGroup"]
    assert names == ["infer-leader", "infer-workers"]
    assert translation.objects[2]["spec"]["schedulingPolicy"] == {"gang": {"minCount": 2}}


def test_min_sub_group_is_written_with_its_caveat() -> None:
    leaves = tuple(Group(f"s{i}", required=RACK, pods=pods(f"s{i}", 2)) for i in range(3))
    gang = Gang(
        "j", Group("j", required=BLOCK, min_sub_group=2, children=leaves), semantics=Semantics.HIERARCHY
    )
    translation = compile_to_kube(gang, TOPOLOGY, api_version=V1ALPHA3)
    root = translation.objects[1]
    assert root["metadata"]["name"] == "j" and root["spec"]["schedulingPolicy"] == {
        "gang": {"minGroupCount": 2}
    }
    assert any("minSubGroup 2 written as minGroupCount" in n for n in translation.unexpressed)
    for obj in translation.objects:
        check(obj)


def test_unknown_api_version_is_refused() -> None:
    with pytest.raises(WorkloadSpecError) as info:
        compile_to_kube(leader_workers(), TOPOLOGY, api_version="scheduling.k8s.io/v1")
    assert info.value.problems[0].path == "--api-version"


def test_schema_rejects_a_second_topology_constraint() -> None:
    """The schemas catch what the API server refuses (they are not vacuous)."""
    gang = Gang("train", Group("train", children=(Group("main", required=RACK, pods=pods("p", 1)),)))
    group = dict(compile_to_kube(gang, TOPOLOGY).objects[1])
    group["spec"] = {**group["spec"], "schedulingConstraints": {"topology": [{"key": RACK}, {"key": BLOCK}]}}
    with pytest.raises(jsonschema.ValidationError):
        check(group)


def test_a_one_group_gang_keeps_its_minimum() -> None:
    gang = Gang("elastic", Group("elastic", required=RACK, pods=pods("p", 4)), min_member=2)
    (_, group, *_) = compile_to_kube(gang, TOPOLOGY).objects
    assert group["metadata"]["name"] == "elastic"
    assert group["spec"]["schedulingPolicy"] == {"gang": {"minCount": 2}}


@pytest.mark.parametrize("version", [V1BETA1, V1ALPHA3])
def test_a_gang_s_priority_is_said_not_written(version: str) -> None:
    """The API server's Priority admission sets a PodGroup's priority from its PriorityClass and
    refuses any other: an OSMO or KAI priority is said, not written."""
    gang = Gang(
        "train", Group("train", children=(Group("main", pods=pods("p", 2)),)), namespace="ml", priority=7
    )
    translation = compile_to_kube(gang, TOPOLOGY, api_version=version)
    specs = [o["spec"] for o in translation.objects if o["kind"] != "Pod"]
    assert not any("priority" in spec for spec in specs)
    assert not any("priority" in t for s in specs for t in s.get("podGroupTemplates", []))
    assert any("priority 7 left out" in note for note in translation.unexpressed)
