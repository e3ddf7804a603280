"""The API server's admission of one object, with its messages: a create (``validate_create``,
one object alone, without the pods a placement needs), and an update: immutable fields are
refused (the markers of the k8s.io/api types), only gang.minCount may change (since v1alpha3)."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from tests.frontends.kube.docs import RACK, gang, job, pod_group, workload

from toposched.frontends.kube import validate_create, validate_update
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


IMMUTABLE = "Invalid value: null: field is immutable"


def test_policy_cannot_switch_between_basic_and_gang() -> None:
    """``basic`` is immutable, ``gang`` can be neither set nor cleared (v1beta1 markers)."""
    old = pod_group("g", policy=gang(4))
    assert refused(old, changed(old, schedulingPolicy={"basic": {}})) == [
        ("spec.schedulingPolicy.basic", IMMUTABLE),
        ("spec.schedulingPolicy.gang", "Invalid value: null: field cannot be cleared once set"),
    ]


def test_v1alpha2_policy_is_immutable() -> None:
    old = pod_group("g", V1ALPHA2, policy=gang(4))
    assert refused(old, changed(old, schedulingPolicy=gang(2))) == [("spec.schedulingPolicy", IMMUTABLE)]


def test_an_unchanged_invalid_value_is_not_checked_again() -> None:
    """Declarative validation ratchets: only what an update changes must pass."""
    old = pod_group("g", policy=gang(4), priority=2_000_000_000)
    validate_update(old, changed(old, schedulingPolicy=gang(3)))


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
    assert refused(old, changed(old, **{field: value})) == [(f"spec.{field}", IMMUTABLE)]


def test_workload_templates_and_controller_are_immutable() -> None:
    old = workload(
        "w", [{"name": "t", "schedulingPolicy": gang(1)}], controllerRef={"kind": "Job", "name": "j"}
    )
    added = changed(
        old, podGroupTemplates=[*old["spec"]["podGroupTemplates"], {"name": "u", "schedulingPolicy": gang(1)}]
    )
    assert refused(old, added) == [("spec.podGroupTemplates[1]", "Forbidden: item may not be added")]
    assert refused(old, changed(old, controllerRef={"kind": "Job", "name": "k"})) == [
        ("spec.controllerRef", IMMUTABLE)
    ]


def test_v1alpha2_workload_templates_are_immutable() -> None:
    old = workload("w", [{"name": "t", "schedulingPolicy": gang(1)}], V1ALPHA2)
    assert refused(old, changed(old, podGroupTemplates=[{"name": "t", "schedulingPolicy": gang(2)}])) == [
        ("spec.podGroupTemplates", IMMUTABLE)
    ]


def test_an_update_keeps_the_name() -> None:
    old = pod_group("g")
    renamed = copy.deepcopy(old)
    renamed["metadata"]["name"] = "h"
    assert refused(old, renamed) == [("metadata.name", 'Invalid value: "h": field is immutable')]


def test_a_create_is_checked_without_the_rest_of_the_input() -> None:
    validate_create(pod_group("g", policy=gang(4), key=RACK))  # no pods needed to admit it
    with pytest.raises(WorkloadSpecError) as info:
        validate_create(pod_group("g", policy={"gang": {"minCount": 0}}))
    assert [(p.path, p.message) for p in info.value.problems] == [
        ("spec.schedulingPolicy.gang.minCount", "Required value")
    ]


def test_a_job_create_checks_its_scheduling() -> None:
    validate_create(job(pods=4, scheduling={"schedulingPolicy": gang(4)}))
    with pytest.raises(WorkloadSpecError) as info:
        validate_create(job(pods=4, scheduling={"schedulingPolicy": gang(5)}))
    assert [(p.path, p.message) for p in info.value.problems] == [
        (
            "spec.scheduling.schedulingPolicy.gang.minCount",
            "Invalid value: 5: must not be greater than parallelism (4)",
        )
    ]
