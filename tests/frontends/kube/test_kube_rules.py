"""Every validation rule of the kube front end with the API server's message and field path:
the declarative rules of the k8s.io/api types (strict decoding, unions, required, formats,
bounds, enums, map-list keys, dependentRequired), the hand-written ones of
pkg/apis/scheduling/validation/validation.go and the Job's (k8s.io/kubernetes v1.37.2), then the
front end's own linkage rules."""

from __future__ import annotations

from typing import Any

import pytest
from tests.frontends.kube.docs import (
    RACK,
    V1ALPHA3,
    V1BETA1,
    children,
    composite,
    gang,
    job,
    pod_group,
    pods,
    workload,
)

from toposched.frontends.kube import load_kube
from toposched.model import Problem, WorkloadSpecError

V1ALPHA2 = "scheduling.k8s.io/v1alpha2"
SUBDOMAIN = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and "
    "must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
)
LABEL = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must "
    "start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for "
    "validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
)


def problems(documents: list[Any]) -> list[Problem]:
    with pytest.raises(WorkloadSpecError) as info:
        load_kube(documents)
    return list(info.value.problems)


def found(documents: list[Any]) -> list[tuple[str, str]]:
    return [(p.path, p.message) for p in problems(documents)]


def only(documents: list[Any]) -> Problem:
    (problem,) = problems(documents)
    return problem


def with_pods(obj: dict[str, Any], count: int = 1) -> list[Any]:
    return [obj, *pods(obj["metadata"]["name"], count)]


def template(name: str = "t", **fields: Any) -> dict[str, Any]:
    return {"name": name, "schedulingPolicy": gang(1), **fields}


def decoding(kind: str, version: str, detail: str) -> str:
    return f'{kind} in version "{version}" cannot be handled as a {kind}: {detail}'


# -- strict decoding (the fields of each version's Go types) ---------------------------------


@pytest.mark.parametrize(
    ("doc", "path", "field"),
    [
        (pod_group("g", level=RACK), "podGroups[g].spec.level", "spec.level"),
        (
            pod_group("g", schedulingConstraints={"topology": [{"level": RACK}]}),
            "podGroups[g].spec.schedulingConstraints.topology[0].level",
            "spec.schedulingConstraints.topology.level",
        ),
        (
            pod_group("g", V1ALPHA2, workloadRef={"workloadName": "w", "templateName": "t"}),
            "podGroups[g].spec.workloadRef",
            "spec.workloadRef",
        ),
        (
            pod_group(
                "g", podGroupTemplateRef={"workload": {"workloadName": "w", "podGroupTemplateName": "t"}}
            ),
            "podGroups[g].spec.podGroupTemplateRef",
            "spec.podGroupTemplateRef",
        ),
        (
            pod_group("g", V1ALPHA2, preemptionPolicy="Never"),
            "podGroups[g].spec.preemptionPolicy",
            "spec.preemptionPolicy",
        ),
        (
            pod_group("g", V1ALPHA2, parentCompositePodGroupName="p"),
            "podGroups[g].spec.parentCompositePodGroupName",
            "spec.parentCompositePodGroupName",
        ),
    ],
    ids=[
        "unknown-spec-field",
        "keps-level",
        "v1alpha3-ref-in-v1alpha2",
        "v1alpha2-ref-in-v1beta1",
        "v1alpha2-preemption",
        "v1alpha2-parent",
    ],
)
def test_a_field_the_version_does_not_have_is_an_unknown_field(
    doc: dict[str, Any], path: str, field: str
) -> None:
    version = doc["apiVersion"].rsplit("/", 1)[1]
    assert found(with_pods(doc)) == [
        (path, decoding("PodGroup", version, f'strict decoding error: unknown field "{field}"'))
    ]


@pytest.mark.parametrize(
    ("spec", "path", "detail"),
    [
        (
            {"schedulingPolicy": {"gang": {"minCount": "4"}}},
            "spec.schedulingPolicy.gang.minCount",
            "json: cannot unmarshal string into Go struct field GangSchedulingPolicy.spec.schedulingPolicy.gang.minCount of type int32",
        ),
        (
            {"schedulingPolicy": {"gang": {"minCount": 2**31}}},
            "spec.schedulingPolicy.gang.minCount",
            "json: cannot unmarshal number 2147483648 into Go struct field GangSchedulingPolicy.spec.schedulingPolicy.gang.minCount of type int32",
        ),
        (
            {"schedulingPolicy": {"basic": {}}, "priority": "high"},
            "spec.priority",
            "json: cannot unmarshal string into Go struct field PodGroupSpec.spec.priority of type int32",
        ),
        (
            {"schedulingPolicy": {"basic": {}}, "schedulingConstraints": {"topology": {"key": RACK}}},
            "spec.schedulingConstraints.topology",
            "json: cannot unmarshal object into Go struct field PodGroupSchedulingConstraints.spec.schedulingConstraints.topology of type []TopologyConstraint",
        ),
    ],
    ids=["string-count", "int32-overflow", "string-priority", "topology-not-a-list"],
)
def test_a_value_of_the_wrong_type_does_not_decode(spec: dict[str, Any], path: str, detail: str) -> None:
    doc = pod_group("g")
    doc["spec"] = spec
    assert found(with_pods(doc)) == [(f"podGroups[g].{path}", decoding("PodGroup", "v1beta1", detail))]


def test_served_fields_of_v1beta1_include_the_composite_ones() -> None:
    """v1beta1 serves compositePodGroupTemplates and parentCompositePodGroupName (issue 22 item 12)."""
    tree = {"name": "r", "schedulingPolicy": {"basic": {}}, "podGroupTemplates": [template("t")]}
    docs = [
        {**workload("w", []), "spec": {"compositePodGroupTemplates": [tree]}},
        composite("r"),
        *children("r", ("t", 1)),
        *pods("t", 1),
    ]
    for doc in docs[2:3]:
        assert doc["apiVersion"] == V1ALPHA3
        doc["apiVersion"] = V1BETA1
    (top,) = load_kube(docs).gang.root.children
    assert [c.name for c in top.children] == ["t"]


# -- Workload (declarative) --------------------------------------------------------------------


def test_more_than_eight_templates() -> None:
    assert found([workload("w", [template(f"t{i}") for i in range(9)])]) == [
        ("workloads[w].spec.podGroupTemplates", "Too many: 9: must have at most 8 items")
    ]


def test_templates_xor_composite_templates() -> None:
    tree = {"name": "r", "schedulingPolicy": {"basic": {}}, "podGroupTemplates": [template("u")]}
    both = workload("w", [template()], compositePodGroupTemplates=[tree])
    assert found([both]) == [
        (
            "workloads[w].spec",
            'Invalid value: "{podGroupTemplates, compositePodGroupTemplates}": must specify exactly one of: '
            "`podGroupTemplates`, `compositePodGroupTemplates`",
        )
    ]
    neither = {**workload("w", []), "spec": {}}
    assert found([neither]) == [
        (
            "workloads[w].spec",
            'Invalid value: "": must specify one of: `podGroupTemplates`, `compositePodGroupTemplates`',
        )
    ]


def test_template_names_are_dns_labels_and_unique() -> None:
    assert found([workload("w", [template("Bad_Name"), template("a"), template("a")])]) == [
        (
            "workloads[w].spec.podGroupTemplates[2]",
            'Duplicate value: {"name":"a","schedulingPolicy":{"gang":{"minCount":1}}}',
        ),
        ("workloads[w].spec.podGroupTemplates[0].name", f'Invalid value: "Bad_Name": {LABEL}'),
    ]


@pytest.mark.parametrize(
    ("ref", "path", "message"),
    [
        ({"apiGroup": "example.com"}, "kind", "Required value"),
        (
            {"apiGroup": "Example.com", "kind": "Job", "name": "j"},
            "apiGroup",
            f'Invalid value: "Example.com": {SUBDOMAIN}',
        ),
        ({"kind": "a/b", "name": "j"}, "kind", "Invalid value: \"a/b\": may not contain '/'"),
        ({"kind": "Job", "name": ".."}, "name", "Invalid value: \"..\": may not be '..'"),
    ],
    ids=["kind-required", "api-group-subdomain", "kind-path-segment", "name-path-segment"],
)
def test_controller_ref_formats(ref: dict[str, Any], path: str, message: str) -> None:
    problems_ = found([workload("w", [template()], controllerRef=ref)])
    assert problems_[0] == (f"workloads[w].spec.controllerRef.{path}", message)


# -- Workload (validation.go) ------------------------------------------------------------------


def tree_workload(*composites: dict[str, Any], **spec: Any) -> dict[str, Any]:
    return {**workload("w", [], V1ALPHA3), "spec": {"compositePodGroupTemplates": list(composites), **spec}}


def cpg(
    name: str, *, groups: tuple[str, ...] = (), subtrees: tuple[dict[str, Any], ...] = (), **fields: Any
) -> dict[str, Any]:
    out: dict[str, Any] = {"name": name, "schedulingPolicy": {"basic": {}}, **fields}
    if groups:
        out["podGroupTemplates"] = [template(g) for g in groups]
    if subtrees:
        out["compositePodGroupTemplates"] = list(subtrees)
    return out


def test_template_names_are_unique_across_the_whole_tree() -> None:
    assert found(
        [tree_workload(cpg("cpg1", groups=("group1",), subtrees=(cpg("cpg2", groups=("group1",)),)))]
    ) == [
        (
            "workloads[w].spec.compositePodGroupTemplates[0].compositePodGroupTemplates[0].podGroupTemplates[0].name",
            'Duplicate value: "group1"',
        )
    ]
    assert found([tree_workload(cpg("main", subtrees=(cpg("main", groups=("leaf",)),)))]) == [
        (
            "workloads[w].spec.compositePodGroupTemplates[0].compositePodGroupTemplates[0].name",
            'Duplicate value: "main"',
        )
    ]


def test_composite_templates_nest_at_most_three_deep() -> None:
    deepest = cpg("cpg4", groups=("leaf",))
    chain = cpg("cpg1", subtrees=(cpg("cpg2", subtrees=(cpg("cpg3", subtrees=(deepest,)),)),))
    (problem,) = problems([tree_workload(chain)])
    assert problem.path == "workloads[w].spec.compositePodGroupTemplates[0]"
    assert problem.message.endswith(": maximum template hierarchy depth is 4")


def test_a_composite_template_needs_a_child() -> None:
    assert found([tree_workload(cpg("main"))]) == [
        (
            "workloads[w].spec.compositePodGroupTemplates[0]",
            'Invalid value: "main": must have at least one child PodGroupTemplate or CompositePodGroupTemplate',
        )
    ]


def test_every_template_asks_for_one_priority() -> None:
    flat = workload("w", [template("a", priority=1), template("b", priority=2)])
    assert found([flat]) == [
        ("workloads[w].spec", "Invalid value: null: detected multiple priority configurations")
    ]
    tree = tree_workload(cpg("main", groups=("a",), priorityClassName="high"))
    assert found([tree]) == [
        (
            "workloads[w].spec",
            "Invalid value: null: all priority and priorityClassName values must be identical, detected multiple values",
        )
    ]


# -- PodGroup (declarative) --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("policy", "path", "message"),
    [
        (
            {"basic": {}, "gang": {"minCount": 1}},
            "podGroups[g].spec.schedulingPolicy",
            'Invalid value: "{basic, gang}": must specify exactly one of: `basic`, `gang`',
        ),
        ({}, "podGroups[g].spec.schedulingPolicy", 'Invalid value: "": must specify one of: `basic`, `gang`'),
        ({"gang": {}}, "podGroups[g].spec.schedulingPolicy.gang.minCount", "Required value"),
        ({"gang": {"minCount": 0}}, "podGroups[g].spec.schedulingPolicy.gang.minCount", "Required value"),
        (
            {"gang": {"minCount": -1}},
            "podGroups[g].spec.schedulingPolicy.gang.minCount",
            "Invalid value: -1: must be greater than or equal to 1",
        ),
    ],
    ids=["basic-and-gang", "neither", "no-min-count", "zero", "negative"],
)
def test_policy_is_basic_xor_gang_with_min_count_at_least_one(policy: Any, path: str, message: str) -> None:
    assert found(with_pods(pod_group("g", policy=policy))) == [(path, message)]


def test_a_missing_policy_is_an_empty_union() -> None:
    doc = pod_group("g")
    del doc["spec"]["schedulingPolicy"]
    assert found(with_pods(doc)) == [
        ("podGroups[g].spec.schedulingPolicy", 'Invalid value: "": must specify one of: `basic`, `gang`')
    ]


KEY = "podGroups[g].spec.schedulingConstraints.topology[0].key"


@pytest.mark.parametrize(
    ("key", "message"),
    [
        ("", "Required value"),
        ("a" * 254 + "/foo", None),
        ("foo/" + "b" * 64, "name part must be no more than 63 bytes"),
        ("b" * 64, "name part must be no more than 63 bytes"),
        ("Example.com/Foo", None),
    ],
    ids=["empty", "long-prefix", "long-name-with-prefix", "long-name", "upper-case-prefix"],
)
def test_constraint_key_is_a_kubernetes_label_key(key: str, message: str | None) -> None:
    (problem,) = problems(with_pods(pod_group("g", key=key)))
    assert problem.path == KEY
    if message == "Required value":
        assert problem.message == message
    else:
        assert problem.message.startswith("Invalid value: ")
        assert message is None or problem.message.endswith(message)
        assert "prefix part" in problem.message or "name part" in problem.message


@pytest.mark.parametrize(
    "key", ["example.com/Foo", "a" * 253 + "/" + "b" * 63, "a" * 63], ids=["upper-name", "317", "63"]
)
def test_valid_label_keys_are_accepted(key: str) -> None:
    (group,) = load_kube(with_pods(pod_group("g", key=key))).gang.root.children
    assert group.required == key


def test_at_most_one_topology_constraint() -> None:
    doc = pod_group("g", schedulingConstraints={"topology": [{"key": RACK}, {"key": "example.com/block"}]})
    assert found(with_pods(doc)) == [
        ("podGroups[g].spec.schedulingConstraints.topology", "Too many: 2: must have at most 1 item")
    ]


def test_resource_claims() -> None:
    claims = [{"name": f"c{i}", "resourceClaimName": f"c{i}"} for i in range(5)]
    assert found(with_pods(pod_group("g", resourceClaims=claims))) == [
        ("podGroups[g].spec.resourceClaims", "Too many: 5: must have at most 4 items")
    ]
    union = [{"name": "a"}, {"name": "b", "resourceClaimName": "x", "resourceClaimTemplateName": "y"}]
    assert found(with_pods(pod_group("g", resourceClaims=union))) == [
        (
            "podGroups[g].spec.resourceClaims[0]",
            'Invalid value: "": must specify one of: `resourceClaimName`, `resourceClaimTemplateName`',
        ),
        (
            "podGroups[g].spec.resourceClaims[1]",
            'Invalid value: "{resourceClaimName, resourceClaimTemplateName}": must specify exactly one of: '
            "`resourceClaimName`, `resourceClaimTemplateName`",
        ),
    ]


def test_disruption_mode_per_version() -> None:
    assert found(with_pods(pod_group("g", disruptionMode={}))) == [
        ("podGroups[g].spec.disruptionMode", 'Invalid value: "": must specify one of: `single`, `all`')
    ]
    assert found(with_pods(pod_group("g", V1ALPHA2, disruptionMode="All"))) == [
        ("podGroups[g].spec.disruptionMode", 'Unsupported value: "All": supported values: "Pod", "PodGroup"')
    ]


def test_preemption_policy_and_priority_bounds() -> None:
    assert found(with_pods(pod_group("g", preemptionPolicy="Always"))) == [
        (
            "podGroups[g].spec.preemptionPolicy",
            'Unsupported value: "Always": supported values: "Never", "PreemptLowerPriority"',
        )
    ]
    assert found(with_pods(pod_group("g", priority=1_000_000_001))) == [
        ("podGroups[g].spec.priority", "Invalid value: 1000000001: must be less than or equal to 1000000000")
    ]
    assert found(with_pods(pod_group("g", priorityClassName="high/priority"))) == [
        ("podGroups[g].spec.priorityClassName", f'Invalid value: "high/priority": {SUBDOMAIN}')
    ]


def test_workload_ref_names() -> None:
    assert found(with_pods(pod_group("g", workloadRef={"workloadName": "w"}))) == [
        ("podGroups[g].spec.workloadRef.templateName", "Required value")
    ]
    assert found(
        with_pods(pod_group("g", workloadRef={"workloadName": "w", "templateName": "temp.late"}))
    ) == [("podGroups[g].spec.workloadRef.templateName", 'Invalid value: "temp.late": must not contain dots')]


def test_a_parent_needs_a_workload_ref() -> None:
    orphan = pod_group("g", V1ALPHA3, policy=gang(1), parentCompositePodGroupName="c")
    assert found([composite("c"), *with_pods(orphan)]) == [
        (
            "podGroups[g].spec.workloadRef",
            "Required value: must be set when parentCompositePodGroupName is set",
        )
    ]


def test_composite_pod_group_kind_only_in_v1alpha3() -> None:
    wrong = {**composite("c"), "apiVersion": V1BETA1}
    assert found([wrong]) == [
        (
            "compositePodGroups[c].apiVersion",
            'no matches for kind "CompositePodGroup" in version "scheduling.k8s.io/v1beta1"',
        )
    ]


def test_composite_pod_group_needs_its_workload_ref() -> None:
    no_ref = composite("c")
    del no_ref["spec"]["workloadRef"]
    assert found([no_ref, *children("c", ("g", 1)), *pods("g", 1)])[0] == (
        "compositePodGroups[c].spec.workloadRef",
        "Required value",
    )


# -- metadata and versions -----------------------------------------------------------------------


def test_metadata_name() -> None:
    doc = pod_group("g")
    del doc["metadata"]["name"]
    assert found([doc]) == [
        ("documents[0].metadata.name", "Required value: name or generateName is required")
    ]
    dotted = workload("w", [template()])
    dotted["metadata"]["name"] = ".workload"
    assert found([dotted]) == [
        ("workloads[.workload].metadata.name", f'Invalid value: ".workload": {SUBDOMAIN}')
    ]


def test_unknown_version_and_kind() -> None:
    assert (
        only([{**pod_group("g"), "apiVersion": "scheduling.k8s.io/v2"}]).message
        == "'scheduling.k8s.io/v2' is not served"
    )
    problem = only([{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"}}])
    assert problem.message == "'Deployment' (apps/v1) is not read by the kube front end"


def test_a_job_in_a_list_is_checked_as_a_kube_job() -> None:
    """kubectl reads the items of a v1 List as objects: the checks apply to them too."""
    listed = {
        "apiVersion": "v1",
        "kind": "List",
        "items": [job(pods=4, scheduling={"schedulingPolicy": gang(5)})],
    }
    assert found([listed]) == [
        (
            "jobs[llm-train].spec.scheduling.schedulingPolicy.gang.minCount",
            "Invalid value: 5: must not be greater than parallelism (4)",
        )
    ]


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
    (orphan,) = children("missing", ("g", 1))
    assert only(with_pods(orphan)).message == "names CompositePodGroup 'missing', which is not in the input"
    assert only([composite("lonely")]).message == (
        "CompositePodGroup 'lonely' has no PodGroups or CompositePodGroups under it"
    )


def test_composite_pod_groups_nest_at_most_four() -> None:
    chain = [composite("c0")] + [
        composite(f"c{i}", parentCompositePodGroupName=f"c{i - 1}") for i in range(1, 5)
    ]
    (leaf,) = children("c4", ("g", 1))
    found = problems([*chain, *with_pods(leaf)])
    assert [p.message for p in found] == ["nests 5 CompositePodGroups; at most 4 levels are allowed"]


def test_duplicate_group_names() -> None:
    found = problems([pod_group("g"), pod_group("g"), *pods("g", 1)])
    assert found[0].message == "'g' appears twice"


# -- Jobs ----------------------------------------------------------------------------------------


def test_job_min_count_above_parallelism() -> None:
    assert found([job(pods=4, scheduling={"schedulingPolicy": gang(5)})]) == [
        (
            "jobs[llm-train].spec.scheduling.schedulingPolicy.gang.minCount",
            "Invalid value: 5: must not be greater than parallelism (4)",
        )
    ]


def test_job_scheduling_rules_name_job_fields() -> None:
    assert found([job(scheduling={"schedulingPolicy": {"basic": {}, "gang": {}}})]) == [
        (
            "jobs[llm-train].spec.scheduling.schedulingPolicy",
            'Invalid value: "{basic, gang}": must specify exactly one of: `basic`, `gang`',
        )
    ]
    assert found([job(scheduling={"schedulingPolicy": {"gang": {"minCount": 0}}})]) == [
        (
            "jobs[llm-train].spec.scheduling.schedulingPolicy.gang.minCount",
            "Invalid value: 0: must be greater than or equal to 1",
        )
    ]


def test_a_basic_job_cannot_be_disrupted_all_together() -> None:
    assert found([job(scheduling={"disruptionMode": {"all": {}}})]) == [
        (
            "jobs[llm-train].spec.scheduling.disruptionMode",
            'Invalid value: "": the disruptionMode `all` is not supported with the Basic scheduling policy',
        )
    ]


def test_every_problem_is_reported_at_once() -> None:
    bad = pod_group("g", policy={}, key="not a key!", priority=2_000_000_000)
    assert len(problems(with_pods(bad))) == 3


def test_pod_limit_counts_a_jobs_pods_once() -> None:
    load_kube([job(pods=8)], max_pods=8)
    with pytest.raises(WorkloadSpecError) as info:
        load_kube([job(pods=9)], max_pods=8)
    assert info.value.problems[0].path == "jobs[llm-train].spec.parallelism"
    with pytest.raises(WorkloadSpecError):
        load_kube([pod_group("g"), *pods("g", 9)], max_pods=8)
