"""A KAI PodGroup and its pods are read as the API server reads them (``fieldValidation=Strict``
against the installed PodGroup CRD, ``ValidateObjectMeta``), through the registry as the CLI and
the service read them. Each row was found by the differential validation against
kube-apiserver v1.37.2 (``python -m tests.realkube.diffval``, seed 231): the server refused the
object at the field named, toposched took it or named another field."""

from __future__ import annotations

import copy
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from toposched.frontends.registry import CompileContext, default_registry
from toposched.intake.parse import parse_documents
from toposched.model import WorkloadSpecError

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "kai" / "podgroup-pods.yaml"
Change = Callable[[list[dict[str, Any]]], None]


def _example() -> list[dict[str, Any]]:
    return parse_documents(EXAMPLE.read_text(encoding="utf-8"), source=str(EXAMPLE))


def _set(where: tuple[str | int, ...], value: object, document: int = 0) -> Change:
    def change(docs: list[dict[str, Any]]) -> None:
        node: Any = docs[document]
        for key in where[:-1]:
            node = node[key]
        node[where[-1]] = value

    return change


ROWS: list[tuple[str, Change, str, str]] = [
    (
        "unknown-spec-field",
        _set(("spec", "parentCompositePodGroupName"), "pg"),
        "spec.parentCompositePodGroupName",
        'strict decoding error: unknown field "spec.parentCompositePodGroupName"',
    ),
    (
        "unknown-subgroup-field",
        _set(("spec", "subGroups", 1, "policy"), "x"),
        "spec.subGroups[1].policy",
        'unknown field "spec.subGroups[1].policy"',
    ),
    ("unknown-root-field", _set(("minCount",), 2), "minCount", 'unknown field "minCount"'),
    (
        "unknown-metadata-field",
        _set(("metadata", "bogus"), "x"),
        "metadata.bogus",
        'unknown field "metadata.bogus"',
    ),
    (
        "label-value-not-a-string",
        _set(("metadata", "labels"), {"-rack": ["v"]}),
        "metadata.labels",
        "json: cannot unmarshal array into Go struct field ObjectMeta.labels of type string",
    ),
    (
        "min-member-past-int32",
        _set(("spec", "minMember"), 2**31),
        "spec.minMember",
        "Checked value must be of type integer with format int32 in spec.minMember",
    ),
    (
        "subgroup-min-member-past-int32",
        _set(("spec", "subGroups", 0, "minMember"), 2**31),
        "spec.subGroups[0].minMember",
        "format int32 in spec.subGroups[0].minMember",
    ),
    (
        "min-sub-group-past-int32",
        _set(("spec", "minSubGroup"), 2**53),
        "spec.minSubGroup",
        "format int32 in spec.minSubGroup",
    ),
    (
        "subgroup-min-member-a-mapping",
        _set(("spec", "subGroups", 0, "minMember"), {"a": 1}),
        "spec.subGroups[0].minMember.a",
        'unknown field "spec.subGroups[0].minMember.a"',
    ),
    ("name-not-a-subdomain", _set(("metadata", "name"), "9a_"), "metadata.name", "RFC 1123 subdomain"),
    (
        "label-value-bad",
        _set(("metadata", "labels"), {"example.com/rack": "v-"}),
        "metadata.labels",
        "a valid label must be an empty string",
    ),
    (
        "annotation-key-too-long",
        _set(("metadata", "annotations"), {"e" * 256: "7"}),
        "metadata.annotations",
        "name part must be no more than 63 bytes",
    ),
    (
        "generate-name-bad",
        _set(("metadata", "generateName"), "a..b"),
        "metadata.generateName",
        "RFC 1123 subdomain",
    ),
    (
        "pod-namespace-not-a-label",
        _set(("metadata", "namespace"), "a_b", document=1),
        "pods[leader-0].metadata.namespace",
        "RFC 1123 label",
    ),
    (
        "pod-label-value-bad",
        _set(("metadata", "labels", "app"), "a b", document=2),
        "pods[worker-0].metadata.labels",
        "a valid label must be an empty string",
    ),
]


@pytest.mark.parametrize(("change", "path", "message"), [r[1:] for r in ROWS], ids=[r[0] for r in ROWS])
def test_the_server_refuses_it_and_so_does_toposched(change: Change, path: str, message: str) -> None:
    documents = copy.deepcopy(_example())
    change(documents)
    with pytest.raises(WorkloadSpecError) as caught:
        default_registry().compile(documents, CompileContext())
    problems = caught.value.problems
    assert any(p.path == path and message in p.message for p in problems), problems


def test_the_example_is_read() -> None:
    assert default_registry().compile(_example(), CompileContext()).gang.name == "pg-inference"


def test_a_pod_naming_another_pod_group_is_a_reference_within_the_input() -> None:
    """The server takes any annotation value; toposched resolves the reference in the input."""
    documents = _example()
    documents[1]["metadata"]["annotations"]["pod-group-name"] = "other"
    with pytest.raises(WorkloadSpecError) as caught:
        default_registry().compile(documents, CompileContext())
    (problem,) = caught.value.problems
    assert problem.path == "pods[leader-0].metadata.annotations[pod-group-name]"
    assert "names PodGroup 'other', which is not in the input" in problem.message
