"""PodGroup conditions for the dry run: Scheduled when placed, else kube-scheduler's
"0/N placements are available" message, spelled per the PodGroup's own version; the objects are
otherwise returned as given."""

from __future__ import annotations

from typing import Any

from tests.emit.kube.schemas import check

from toposched.emit.kube import status_objects
from toposched.model import (
    Gang,
    Group,
    Node,
    Placement,
    PodPlacement,
    PodSpec,
    Policy,
    Semantics,
    Unschedulable,
)

RACK = "example.com/rack"
AT = 1_780_000_000.0  # the attempt's time: 2026-05-28T20:26:40Z
NODES = [
    Node.create("n1", {RACK: "r1"}),
    Node.create("n2", {RACK: "r1"}),
    Node.create("n3", {RACK: "r2"}),
    Node.create("bare"),  # no rack label: not a candidate placement
]


def gang() -> Gang:
    leader = Group("infer-leader", min_member=1, pods=(PodSpec("l-0", 0),))
    workers = Group("infer-workers", required=RACK, min_member=2, pods=(PodSpec("w-0", 0), PodSpec("w-1", 1)))
    return Gang("infer", Group("infer", children=(leader, workers)), semantics=Semantics.KUBE)


def pod_groups(api_version: str = "scheduling.k8s.io/v1beta1") -> list[dict[str, Any]]:
    """The gang's PodGroups as a user writes them (the leader's template is named ``leader``)."""
    leader: dict[str, Any] = {"schedulingPolicy": {"basic": {}}}
    if api_version.endswith("v1alpha2"):
        ref = {"workloadName": "infer", "podGroupTemplateName": "leader"}
        leader["podGroupTemplateRef"] = {"workload": ref}
    else:
        leader["workloadRef"] = {"workloadName": "infer", "templateName": "leader"}
    workers = {
        "schedulingPolicy": {"gang": {"minCount": 2}},
        "schedulingConstraints": {"topology": [{"key": RACK}]},
    }
    return [
        {"apiVersion": api_version, "kind": "PodGroup", "metadata": {"name": name}, "spec": spec}
        for name, spec in (("infer-leader", leader), ("infer-workers", workers))
    ]


def conditions(objects: tuple[dict[str, object], ...]) -> dict[str, dict[str, str]]:
    out = {}
    for obj in objects:
        check(obj)
        (condition,) = obj["status"]["conditions"]  # type: ignore[index]
        out[obj["metadata"]["name"]] = condition  # type: ignore[index]
    return out


def test_placed_groups_are_scheduled() -> None:
    placed = Placement(
        "infer",
        "t",
        Policy.BINPACK,
        (
            PodPlacement("l-0", "infer-leader", 0, "n3", ("r2", "n3")),
            PodPlacement("w-0", "infer-workers", 0, "n1", ("r1", "n1")),
            PodPlacement("w-1", "infer-workers", 1, "n2", ("r1", "n2")),
        ),
        {},
    )
    got = conditions(status_objects(pod_groups(), gang(), placed, NODES, at=AT))
    assert got["infer-workers"] == {
        "type": "PodGroupInitiallyScheduled",
        "status": "True",
        "lastTransitionTime": "2026-05-28T20:26:40Z",  # the API server requires it
        "reason": "Scheduled",
        "message": "",
    }


def test_unschedulable_groups_carry_kube_schedulers_message() -> None:
    refused = Unschedulable("infer", "t", Policy.BINPACK, "not enough resources in r1 to allocate the job")
    got = conditions(status_objects(pod_groups(), gang(), refused, NODES, at=AT))
    workers = got["infer-workers"]
    assert (workers["status"], workers["reason"]) == ("False", "Unschedulable")
    assert workers["message"] == (
        "0/2 placements are available, first placement status: not enough resources in r1 to allocate the job"
    )
    assert got["infer-leader"]["message"].startswith("0/1 placements are available")


def test_v1alpha2_names_the_condition_podgroupscheduled() -> None:
    refused = Unschedulable("infer", "t", Policy.BINPACK, "no")
    got = conditions(status_objects(pod_groups("scheduling.k8s.io/v1alpha2"), gang(), refused, NODES, at=AT))
    assert {c["type"] for c in got.values()} == {"PodGroupScheduled"}


def test_a_kube_worded_refusal_is_kept_and_other_groups_wait_for_it() -> None:
    message = "0/2 placements are available, first placement status: minCount (2) cannot be satisfied"
    refused = Unschedulable("infer", "t", Policy.BINPACK, message, group="infer-workers")
    got = conditions(status_objects(pod_groups(), gang(), refused, NODES, at=AT))
    assert got["infer-workers"]["message"] == message
    assert got["infer-leader"]["message"] == (
        "0/1 placements are available, first placement status: the gang's group infer-workers cannot be "
        f"placed: {message}"
    )


def test_the_objects_are_kept_as_given() -> None:
    refused = Unschedulable("infer", "t", Policy.BINPACK, "no")
    given = pod_groups("scheduling.k8s.io/v1alpha3")
    out = status_objects(given, gang(), refused, NODES, at=AT)
    assert [{k: v for k, v in o.items() if k != "status"} for o in out] == given


def test_a_group_without_any_placement_says_so_as_kube_scheduler_does() -> None:
    """No node has the constraint's label: kube-scheduler's placement generator answers "no
    feasible placements found", which is the whole condition (no "0/0 placements" around it)."""
    refused = Unschedulable(
        "infer", "t", Policy.BINPACK, "no feasible placements found", group="infer-workers"
    )
    got = conditions(status_objects(pod_groups(), gang(), refused, [Node.create("bare")], at=AT))
    assert got["infer-workers"]["message"] == "no feasible placements found"
