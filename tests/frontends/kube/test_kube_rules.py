"""Every validation rule of the kube front end, with the field it names and its message (the
API server's rules for scheduling.k8s.io objects, reference/kube-workload-tas.md §1-2)."""

from __future__ import annotations

from typing import Any

import pytest
from tests.frontends.kube.docs import RACK, V1ALPHA3, V1BETA1, composite, gang, job, pod_group, pods, workload

from toposched.frontends.kube import load_kube
from toposched.model import Problem, WorkloadSpecError

V1ALPHA2 = "scheduling.k8s.io/v1alpha2"


def problems(documents: list[Any]) -> list[Problem]:
    with pytest.raises(WorkloadSpecError) as info:
        load_kube(documents)
    return list(info.value.problems)


def only(documents: list[Any]) -> Problem:
    (problem,) = problems(documents)
    return problem


def with_pods(obj: dict[str, Any], count: int = 1) -> list[Any]:
    return [obj, *pods(obj["metadata"]["name"], count)]


def template(name: str = "t", **fields: Any) -> dict[str, Any]:
    return {"name": name, "schedulingPolicy": gang(1), **fields}


# -- Workload ------------------------------------------------------------------------------------


def test_more_than_eight_templates() -> None:
    found = only([workload("w", [template(f"t{i}") for i in range(9)])])
    assert (found.path, found.message) == (
        "workloads[w].spec.podGroupTemplates",
        "has 9 templates; at most 8 are allowed",
    )


def test_templates_xor_composite_templates() -> None:
    both = workload("w", [template()], V1ALPHA3, compositePodGroupTemplates=[])
    assert only([both]).message == "sets both podGroupTemplates and compositePodGroupTemplates"
    neither = {**workload("w", []), "spec": {}}
    assert (only([neither]).path, only([neither]).message) == (
        "workloads[w].spec.podGroupTemplates",
        "is required",
    )


def test_composite_templates_only_in_v1alpha3() -> None:
    doc = {
        **workload("w", []),
        "spec": {
            "compositePodGroupTemplates": [
                {"name": "r", "schedulingPolicy": {"basic": {}}, "podGroupTemplates": [template()]}
            ]
        },
    }
    found = only([doc])
    assert found.path == "workloads[w].spec.compositePodGroupTemplates"
    assert found.message == f"is not served in {V1BETA1}"


def test_template_names_are_dns_labels_and_unique() -> None:
    found = problems([workload("w", [template("Bad_Name"), template("a"), template("a")])])
    assert [(p.path, p.message) for p in found] == [
        ("workloads[w].spec.podGroupTemplates[2].name", "'a' is used twice"),
        ("workloads[w].spec.podGroupTemplates[0].name", "'Bad_Name' is not a DNS label"),
    ]


def test_composite_depth_at_most_four() -> None:
    leaf: dict[str, Any] = {
        "name": "l4",
        "schedulingPolicy": {"basic": {}},
        "podGroupTemplates": [template()],
    }
    tree = leaf
    for depth in range(3, -1, -1):
        tree = {"name": f"l{depth}", "schedulingPolicy": {"basic": {}}, "compositePodGroupTemplates": [tree]}
    doc = {**workload("w", [], V1ALPHA3), "spec": {"compositePodGroupTemplates": [tree]}}
    found = only([doc])
    assert found.message == "nests CompositePodGroups deeper than 4 levels"


def test_controller_ref_needs_kind_and_name() -> None:
    found = problems([workload("w", [template()], controllerRef={"apiGroup": "example.com"})])
    assert [p.path for p in found] == [
        "workloads[w].spec.controllerRef.kind",
        "workloads[w].spec.controllerRef.name",
    ]


# -- scheduling policy and constraints ------------------------------------------------------------


@pytest.mark.parametrize(
    ("policy", "path", "message"),
    [
        (
            {"basic": {}, "gang": {"minCount": 1}},
            "podGroups[g].spec.schedulingPolicy",
            "sets both basic and gang",
        ),
        ({}, "podGroups[g].spec.schedulingPolicy", "must set basic or gang"),
        ({"gang": {}}, "podGroups[g].spec.schedulingPolicy.gang.minCount", "is required"),
        (
            {"gang": {"minCount": 0}},
            "podGroups[g].spec.schedulingPolicy.gang.minCount",
            "must be an integer >= 1, got 0",
        ),
        (
            {"gang": {"minCount": "4"}},
            "podGroups[g].spec.schedulingPolicy.gang.minCount",
            "must be an integer >= 1, got '4'",
        ),
    ],
    ids=["basic-and-gang", "neither", "no-min-count", "zero", "string"],
)
def test_policy_is_basic_xor_gang_with_min_count_at_least_one(policy: Any, path: str, message: str) -> None:
    found = only(with_pods(pod_group("g", policy=policy)))
    assert (found.path, found.message) == (path, message)


def test_policy_is_required() -> None:
    doc = pod_group("g")
    del doc["spec"]["schedulingPolicy"]
    assert (only(with_pods(doc)).path, only(with_pods(doc)).message) == (
        "podGroups[g].spec.schedulingPolicy",
        "is required",
    )


def test_at_most_one_topology_constraint() -> None:
    doc = pod_group("g", schedulingConstraints={"topology": [{"key": RACK}, {"key": "example.com/block"}]})
    found = only(with_pods(doc))
    assert found.path == "podGroups[g].spec.schedulingConstraints.topology"
    assert found.message == "has 2 constraints; kube-scheduler takes at most 1"


def test_constraint_key_is_a_label_key_not_the_keps_level() -> None:
    old = pod_group("g", schedulingConstraints={"topology": [{"level": RACK}]})
    assert only(with_pods(old)).message == "is not a field (the KEP's old name)"
    bad = pod_group("g", key="not a key!")
    assert only(with_pods(bad)).path == "podGroups[g].spec.schedulingConstraints.topology[0].key"


def test_resource_claims_at_most_four() -> None:
    claims = [{"name": f"c{i}", "resourceClaimName": f"c{i}"} for i in range(5)]
    assert (
        only(with_pods(pod_group("g", resourceClaims=claims))).message
        == "has 5 claims; at most 4 are allowed"
    )


def test_disruption_mode_per_version() -> None:
    assert only(with_pods(pod_group("g", disruptionMode="PodGroup"))).message.endswith(
        "must set exactly one of single or all"
    )
    assert only(with_pods(pod_group("g", V1ALPHA2, disruptionMode={"all": {}}))).message == (
        f"{{'all': {{}}}} is not a disruption mode of {V1ALPHA2}"
    )


def test_preemption_policy() -> None:
    assert (
        only(with_pods(pod_group("g", preemptionPolicy="Always"))).message
        == "'Always' is not a preemption policy"
    )
    assert (
        only(with_pods(pod_group("g", V1ALPHA2, preemptionPolicy="Never"))).message
        == f"is not served in {V1ALPHA2}"
    )


def test_priority_is_an_integer() -> None:
    assert only(with_pods(pod_group("g", priority="high"))).path == "podGroups[g].spec.priority"


# -- PodGroup and CompositePodGroup -------------------------------------------------------------


def test_template_reference_is_spelled_per_version() -> None:
    new_in_old = pod_group("g", V1ALPHA2, workloadRef={"workloadName": "w", "templateName": "t"})
    assert only(with_pods(new_in_old)).path == "podGroups[g].spec.workloadRef"
    old_in_new = pod_group(
        "g", podGroupTemplateRef={"workload": {"workloadName": "w", "podGroupTemplateName": "t"}}
    )
    assert only(with_pods(old_in_new)).message == f"is not a field of {V1BETA1} (1.36's spelling)"
    incomplete = pod_group("g", workloadRef={"workloadName": "w"})
    assert only(with_pods(incomplete)).path == "podGroups[g].spec.workloadRef.templateName"


def test_parent_composite_only_in_v1alpha3() -> None:
    found = only(with_pods(pod_group("g", parentCompositePodGroupName="p")))
    assert (found.path, found.message) == (
        "podGroups[g].spec.parentCompositePodGroupName",
        f"is not served in {V1BETA1}",
    )


def test_composite_pod_group_only_in_v1alpha3_and_needs_its_workload_ref() -> None:
    wrong = {**composite("c"), "apiVersion": V1BETA1}
    assert problems([wrong])[0].message == f"CompositePodGroup is only served in {V1ALPHA3}"
    no_ref = composite("c")
    del no_ref["spec"]["workloadRef"]
    child = pod_group("g", V1ALPHA3, parentCompositePodGroupName="c")
    assert problems([no_ref, *with_pods(child)])[0].path == "compositePodGroups[c].spec.workloadRef"


def test_metadata_name_is_required() -> None:
    doc = pod_group("g")
    del doc["metadata"]["name"]
    assert only([doc]).path == "documents[0].metadata.name"


def test_unknown_version_and_kind() -> None:
    assert (
        only([{**pod_group("g"), "apiVersion": "scheduling.k8s.io/v2"}]).message
        == "'scheduling.k8s.io/v2' is not served"
    )
    found = only([{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"}}])
    assert found.message == "'Deployment' (apps/v1) is not read by the kube front end"


# -- linkage ----------------------------------------------------------------------------------------


def test_pod_names_a_missing_pod_group() -> None:
    found = only(pods("ghost", 1))
    assert found.path == "pods[ghost-0].spec.schedulingGroup.podGroupName"
    assert found.message == "pod 'ghost-0' names PodGroup 'ghost', which is not in the input"


def test_pod_without_link_and_group_without_pods() -> None:
    stray = pods("g", 1)[0]
    del stray["spec"]["schedulingGroup"]
    found = problems([pod_group("g"), stray])
    assert [p.message for p in found] == [
        "pod 'g-0' belongs to no PodGroup",
        "PodGroup 'g' has no pods in the input",
    ]


def test_gang_with_fewer_pods_than_min_count_would_wait() -> None:
    found = only([pod_group("g", policy=gang(3)), *pods("g", 2)])
    assert "kube-scheduler would keep waiting for minCount pods from a gang to appear" in found.message


def test_pods_of_a_group_share_scheduler_name() -> None:
    members = pods("g", 2)
    members[1]["spec"]["schedulerName"] = "other"
    assert only([pod_group("g"), *members]).message.startswith(
        "all pods in a single pod group should have the same .spec.schedulerName set"
    )


def test_pod_and_group_share_a_namespace() -> None:
    members = pods("g", 1)
    members[0]["metadata"]["namespace"] = "other"
    assert only([pod_group("g"), *members]).message == "pod 'g-0' is in 'other', its PodGroup 'g' in 'ml'"


def test_parent_must_exist_and_composite_needs_children() -> None:
    orphan = pod_group("g", V1ALPHA3, parentCompositePodGroupName="missing")
    assert only(with_pods(orphan)).message == "names CompositePodGroup 'missing', which is not in the input"
    assert only([composite("lonely")]).message == (
        "CompositePodGroup 'lonely' has no PodGroups or CompositePodGroups under it"
    )


def test_composite_pod_groups_nest_at_most_four() -> None:
    chain = [composite("c0")] + [
        composite(f"c{i}", parentCompositePodGroupName=f"c{i - 1}") for i in range(1, 5)
    ]
    leaf = pod_group("g", V1ALPHA3, parentCompositePodGroupName="c4")
    found = problems([*chain, *with_pods(leaf)])
    assert [p.message for p in found] == ["nests 5 CompositePodGroups; at most 4 levels are allowed"]


def test_duplicate_group_names() -> None:
    found = problems([pod_group("g"), pod_group("g"), *pods("g", 1)])
    assert found[0].message == "'g' appears twice"


# -- Jobs ----------------------------------------------------------------------------------------


def test_job_min_count_above_parallelism() -> None:
    found = only([job(pods=4, scheduling={"schedulingPolicy": gang(5)})])
    assert found.path == "jobs[llm-train].spec.scheduling.schedulingPolicy.gang.minCount"
    assert found.message == "is 5 but the Job runs 4 pods at once: the gang would never be scheduled"


def test_job_scheduling_rules_name_job_fields() -> None:
    found = only([job(scheduling={"schedulingPolicy": {"basic": {}, "gang": {}}})])
    assert (found.path, found.message) == (
        "jobs[llm-train].spec.scheduling.schedulingPolicy",
        "sets both basic and gang",
    )


def test_every_problem_is_reported_at_once() -> None:
    bad = pod_group("g", policy={}, key="not a key!", priority="x")
    assert len(problems(with_pods(bad))) == 3


def test_pod_limit_counts_a_jobs_pods_once() -> None:
    load_kube([job(pods=8)], max_pods=8)
    with pytest.raises(WorkloadSpecError) as info:
        load_kube([job(pods=9)], max_pods=8)
    assert info.value.problems[0].path == "jobs[llm-train].spec.parallelism"
    with pytest.raises(WorkloadSpecError):
        load_kube([pod_group("g"), *pods("g", 9)], max_pods=8)
