"""Updates of Workloads and PodGroups: immutable fields are refused, only gang.minCount may change
(since v1alpha3)."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from tests.frontends.kube.docs import RACK, gang, pod_group, workload

from toposched.frontends.kube import validate_update
from toposched.model import WorkloadSpecError

V1ALPHA2 = "scheduling.k8s.io/v1alpha2"


def refused(old: dict[str, Any], new: dict[str, Any]) -> list[tuple[str, str]]:
    with pytest.raises(WorkloadSpecError) as info:
        validate_update(old, new)
    return [(p.path, p.message) for p in info.value.problems]


def changed(obj: dict[str, Any], **spec: Any) -> dict[str, Any]:
    out = copy.deepcopy(obj)
    out["spec"].update(spec)
    return out


def test_min_count_may_change() -> None:
    old = pod_group("g", policy=gang(4), key=RACK)
    validate_update(old, changed(old, schedulingPolicy=gang(2)))


def test_policy_cannot_switch_between_basic_and_gang() -> None:
    old = pod_group("g", policy=gang(4))
    assert refused(old, changed(old, schedulingPolicy={"basic": {}})) == [
        ("spec.schedulingPolicy", "cannot switch between basic and gang")
    ]


def test_v1alpha2_policy_is_immutable() -> None:
    old = pod_group("g", V1ALPHA2, policy=gang(4))
    assert refused(old, changed(old, schedulingPolicy=gang(2))) == [
        ("spec.schedulingPolicy", f"is immutable in {V1ALPHA2}")
    ]


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("schedulingConstraints", {"topology": [{"key": "example.com/block"}]}),
        ("workloadRef", {"workloadName": "w", "templateName": "other"}),
        ("priority", 7),
        ("priorityClassName", "high"),
        ("disruptionMode", {"all": {}}),
        ("resourceClaims", [{"name": "c", "resourceClaimName": "c"}]),
        ("preemptionPolicy", "Never"),
    ],
)
def test_pod_group_fields_are_immutable(field: str, value: Any) -> None:
    old = pod_group("g", policy=gang(4), key=RACK, workloadRef={"workloadName": "w", "templateName": "t"})
    assert refused(old, changed(old, **{field: value})) == [(f"spec.{field}", "is immutable")]


def test_workload_templates_and_controller_are_immutable() -> None:
    old = workload(
        "w", [{"name": "t", "schedulingPolicy": gang(1)}], controllerRef={"kind": "Job", "name": "j"}
    )
    added = changed(
        old, podGroupTemplates=[*old["spec"]["podGroupTemplates"], {"name": "u", "schedulingPolicy": gang(1)}]
    )
    assert refused(old, added) == [("spec.podGroupTemplates", "is immutable")]
    assert refused(old, changed(old, controllerRef={"kind": "Job", "name": "k"})) == [
        ("spec.controllerRef", "is immutable")
    ]


def test_an_update_keeps_the_name() -> None:
    old = pod_group("g")
    renamed = copy.deepcopy(old)
    renamed["metadata"]["name"] = "h"
    assert refused(old, renamed)[0][0] == "metadata.name"
