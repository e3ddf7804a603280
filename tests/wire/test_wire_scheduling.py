"""scheduling.k8s.io objects: built and read back in every served version, the Pod link, the
PodGroup condition."""

from __future__ import annotations

import pytest

from toposched.wire.scheduling import (
    SERVED,
    V1ALPHA2,
    V1ALPHA3,
    V1BETA1,
    CompositePodGroup,
    CompositeTemplate,
    PodGroup,
    PodGroupTemplate,
    Workload,
    has_composites,
    read_composite_pod_group,
    read_pod_group,
    read_pod_link,
    read_workload,
    scheduled_condition,
    unschedulable_message,
)

RACK = "example.com/rack"
WORKERS = PodGroupTemplate("workers", 4, RACK, priority=10, priority_class_name="high", disruption_all=True)


@pytest.mark.parametrize("version", SERVED)
def test_pod_group_round_trips(version: str) -> None:
    group = PodGroup(WORKERS, "ml", workload="infer", template="workers")
    obj = group.to_object(version)
    assert obj["apiVersion"] == version
    assert read_pod_group(obj) == group


def test_versions_spell_the_reference_and_disruption_mode() -> None:
    group = PodGroup(WORKERS, "ml", workload="infer", template="workers")
    old, new = group.to_object(V1ALPHA2)["spec"], group.to_object(V1BETA1)["spec"]
    assert old["podGroupTemplateRef"] == {
        "workload": {"workloadName": "infer", "podGroupTemplateName": "workers"}
    }
    assert old["disruptionMode"] == "PodGroup"
    assert new["workloadRef"] == {"workloadName": "infer", "templateName": "workers"}
    assert new["disruptionMode"] == {"all": {}}


def test_basic_policy_and_no_constraint() -> None:
    spec = PodGroup(PodGroupTemplate("leader")).to_object()["spec"]
    assert spec == {"schedulingPolicy": {"basic": {}}}


def test_workload_with_composite_templates_round_trips() -> None:
    replica = CompositeTemplate(
        "replica", 2, RACK, (PodGroupTemplate("leader", 1), PodGroupTemplate("workers", 4))
    )
    workload = Workload("infer", "ml", composites=(replica,))
    obj = workload.to_object(V1ALPHA3)
    assert "podGroupTemplates" not in obj["spec"]
    assert obj["spec"]["compositePodGroupTemplates"][0]["schedulingPolicy"] == {"gang": {"minGroupCount": 2}}
    assert read_workload(obj) == workload


def test_composite_pod_group_round_trips() -> None:
    node = CompositePodGroup("infer-0", "ml", 2, RACK, "infer", "replica", parent="top")
    assert read_composite_pod_group(node.to_object()) == node
    assert has_composites(V1ALPHA3) and not has_composites(V1BETA1)


def test_pod_link_reads_scheduling_group_then_workload_ref() -> None:
    assert read_pod_link({"spec": {"schedulingGroup": {"podGroupName": "g"}}}).pod_group == "g"
    old = read_pod_link({"spec": {"workloadRef": {"name": "w", "podGroup": "workers"}}})
    assert (old.workload, old.template, old.linked) == ("w", "workers", True)
    assert not read_pod_link({"spec": {}}).linked


def test_conditions_per_version() -> None:
    assert scheduled_condition(V1BETA1, scheduled=True, at=0.0) == {
        "type": "PodGroupInitiallyScheduled",
        "status": "True",
        "lastTransitionTime": "1970-01-01T00:00:00Z",
        "reason": "Scheduled",
        "message": "",
    }
    refused = scheduled_condition(
        V1ALPHA2, scheduled=False, at=0.0, message=unschedulable_message(3, ["full"])
    )
    assert refused["type"] == "PodGroupScheduled" and refused["reason"] == "Unschedulable"
    assert refused["message"] == "0/3 placements are available, first placement status: full"


def test_status_goes_with_the_object() -> None:
    obj = PodGroup(WORKERS, "ml").to_object(conditions=[scheduled_condition(V1BETA1, scheduled=True, at=0.0)])
    assert obj["status"]["conditions"][0]["reason"] == "Scheduled"
