"""A batch/v1 Job read through the registry (as the CLI and the service read it) is refused where
the API server refuses it, and only there. Each test was found by the differential validation
against kube-apiserver v1.37.2 (``python -m tests.realkube.diffval``, seed 230; ``#N`` is the
generator's input number, in the corpus at 7a7d898 for #326, #1014 and #1462, at 6f59e75 for
the others: the corpus grows with the conformance cases, which renumbers the inputs)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from toposched.frontends.registry import CompileContext, default_registry
from toposched.intake.parse import parse_documents
from toposched.model import WorkloadSpecError

CASES = Path(__file__).resolve().parents[2] / "conformance" / "cases" / "kube"
EXAMPLES = Path(__file__).resolve().parents[3] / "examples"


def job(case: str) -> dict[str, Any]:
    data = json.loads((CASES / f"{case}.json").read_text(encoding="utf-8"))
    return copy.deepcopy(data["input"]["object"])


def problems(documents: list[Any]) -> list[tuple[str, str]]:
    with pytest.raises(WorkloadSpecError) as caught:
        default_registry().compile(documents, CompileContext())
    return [(p.path, p.message) for p in caught.value.problems]


def test_a_job_without_a_name_is_refused_once_for_it() -> None:
    """#1462: the Workload and PodGroup a Job creates are named after it; without a name they
    were read too, and refused again (``spec.workloadRef.workloadName``, three name errors)."""
    obj = job("kube-dv-job-create-resource-claim-with-invalid-short-name")
    del obj["metadata"]["name"]
    found = problems([obj])
    assert sorted({path for path, _ in found}) == [
        "documents[0].metadata.name",
        "documents[0].spec.scheduling.resourceClaims[0].name",
    ]
    assert [m for p, m in found if p == "documents[0].metadata.name"] == [
        "Required value: name or generateName is required",
        'Invalid value: "": will not able to create pod with invalid DNS label: -9',
    ]


def test_a_job_of_parallelism_zero_has_no_pods_to_place() -> None:
    """#326: the API server takes parallelism 0 (the Job runs no pods for now); toposched has
    nothing to place and says so, instead of calling the value invalid."""
    obj = job("kube-dv-job-create-valid-with-gang-scheduling-policy")
    obj["spec"]["parallelism"] = 0
    found = dict(problems([obj]))
    assert found["jobs[myjob].spec.parallelism"] == "is 0: the Job has no pods to place"


def test_an_indexed_job_read_by_kueue_keeps_room_for_its_pod_index() -> None:
    """#1014: a Job without spec.scheduling is Kueue's to toposched, and the API server's create
    rule on an Indexed Job's name holds there too: its last pod, <name>-<index>, is a DNS label."""
    obj = job("kube-dv-job-create-valid-toleration-key")
    assert "scheduling" not in obj["spec"] and obj["spec"]["completionMode"] == "Indexed"
    obj["metadata"]["name"] = "x" * 63
    found = problems([obj])
    assert (
        "metadata.name",
        f'Invalid value: "{"x" * 63}": will not able to create pod with invalid DNS label: {"x" * 63}-9',
    ) in found


def test_a_job_read_by_kueue_refuses_an_unknown_metadata_field() -> None:
    """#1465: the API server's strict decoding refuses a field ObjectMeta does not have; the
    Kueue front end took it."""
    obj = job("kube-dv-job-create-valid-toleration-key-without-prefix")
    obj["metadata"]["bogus"] = "x"
    assert problems([obj]) == [
        (
            "metadata.bogus",
            'Job in version "v1" cannot be handled as a Job: strict decoding error: unknown field "metadata.bogus"',
        )
    ]


def test_a_pod_read_by_kueue_refuses_an_unknown_metadata_field() -> None:
    path = EXAMPLES / "kueue" / "pod-group.yaml"
    documents = parse_documents(path.read_text(encoding="utf-8"), source=str(path))
    documents[0]["items"][1]["metadata"]["bogus"] = "x"
    found = problems(documents)
    assert [path for path, _ in found] == ["items[1].metadata.bogus"], found


def scheduled(case: str, policy: dict[str, Any]) -> dict[str, Any]:
    """The case's Job with ``spec.scheduling`` (the kube front end's, not Kueue's)."""
    obj = job(case)
    obj["spec"]["scheduling"] = {"schedulingPolicy": policy}
    return obj


@pytest.mark.parametrize(
    ("obj", "where"),
    [
        (job("kube-dv-job-create-invalid-toleration-key-format"), ""),
        (scheduled("kube-dv-job-create-invalid-toleration-key-format", {"basic": {}}), "jobs[myjob]."),
    ],
    ids=["kueue", "kube"],
)
def test_a_toleration_key_is_a_label_key(obj: dict[str, Any], where: str) -> None:
    """The upstream row's own object (kube-dv-job-create-invalid-toleration-key-format): the API
    server refuses the pod template's toleration key; toposched reads tolerations and took it,
    through either front end."""
    found = problems([obj])
    assert [path for path, _ in found] == [f"{where}spec.template.spec.tolerations[0].key"]
    assert found[0][1].startswith('Invalid value: "invalid key": name part must consist of')


def test_the_pod_template_is_reported_with_the_other_problems() -> None:
    """#958: every problem at once, as the server lists a Job's: the pod template's toleration
    was reported only once spec.scheduling was right."""
    obj = scheduled("kube-dv-job-create-invalid-toleration-key-format", {"gang": {"minCount": -1}})
    assert sorted(path for path, _ in problems([obj])) == [
        "jobs[myjob].spec.scheduling.schedulingPolicy.gang.minCount",
        "jobs[myjob].spec.template.spec.tolerations[0].key",
    ]


@pytest.mark.parametrize(
    ("toleration", "field", "message"),
    [
        ({"operator": "Equal", "value": "x"}, "operator", "operator must be Exists when `key` is empty"),
        (
            {"key": "a", "operator": "Exists", "value": "x"},
            "operator",
            "value must be empty when `operator` is 'Exists'",
        ),
        ({"key": "a", "value": "a b"}, "operator", "a valid label must be an empty string"),
        (
            {"key": "a", "effect": "NoSchedule", "tolerationSeconds": 5},
            "effect",
            "effect must be 'NoExecute'",
        ),
    ],
)
def test_the_other_toleration_rules(toleration: dict[str, Any], field: str, message: str) -> None:
    """ValidateTolerations' other rules (k8s.io/kubernetes v1.37.2), at the fields it names."""
    obj = scheduled("kube-dv-job-create-invalid-toleration-key-format", {"basic": {}})
    obj["spec"]["template"]["spec"]["tolerations"] = [toleration]
    ((path, said),) = problems([obj])
    assert path == f"jobs[myjob].spec.template.spec.tolerations[0].{field}" and message in said
