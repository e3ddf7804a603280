"""Object metadata is checked as the API server would (issue 10 item 13): names and namespaces
are DNS-1123, labels and annotations are mappings, topology names are object names, and a
duplicate YAML key is an error rather than a silent overwrite."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from toposched.frontends.grove import admit
from toposched.frontends.registry import CompileContext, default_registry
from toposched.intake.parse import parse_documents
from toposched.model import SpecError, Topology, TopologySpecError, WorkloadSpecError

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def example(path: str) -> list[Any]:
    return parse_documents((EXAMPLES / path).read_text(encoding="utf-8"), source=path)


JOB = example("kueue/job-rack.yaml")
JOBSET = example("kueue/jobset-rack-slices.yaml")
TFJOB = example("kai/tfjob-segments.yaml")
GROVE = example("grove/llama-70b-h100.yaml")


def with_metadata(documents: list[Any], **changes: object) -> list[Any]:
    changed = copy.deepcopy(documents)
    changed[0]["metadata"].update(changes)
    return changed


def problems_of(documents: list[Any]) -> dict[str, str]:
    with pytest.raises(WorkloadSpecError) as caught:
        default_registry().compile(documents, CompileContext())
    return {p.path: p.message for p in caught.value.problems}


@pytest.mark.parametrize(
    ("documents", "field", "message"),
    [
        (with_metadata(JOB, name="j" * 5000), "metadata.name", "is 5000 characters long; the limit is 63"),
        (with_metadata(JOBSET, name="j" * 254), "metadata.name", "is 254 characters long; the limit is 253"),
        (with_metadata(JOB, name="Train_Rack"), "metadata.name", "'Train_Rack' is not a valid name"),
        (
            with_metadata(JOB, namespace="../../etc"),
            "metadata.namespace",
            "'../../etc' is not a valid namespace",
        ),
        (
            with_metadata(TFJOB, namespace="../../etc"),
            "metadata.namespace",
            "'../../etc' is not a valid namespace",
        ),
        (
            with_metadata(GROVE, namespace="../../etc"),
            "metadata.namespace",
            "'../../etc' is not a valid namespace",
        ),
        (with_metadata(TFJOB, name="x" * 300), "metadata.name", "is 300 characters long; the limit is 253"),
        (with_metadata(JOB, labels=["team-a"]), "metadata.labels", "must be a mapping of strings, got list"),
        (with_metadata(GROVE, labels=["a"]), "metadata.labels", "must be a mapping of strings, got list"),
        (
            with_metadata(TFJOB, annotations={"note": {"nested": 1}}),
            'metadata.annotations["note"]',
            "must be a string, got dict",
        ),
        (with_metadata(JOB, labels={"bad key!": "x"}), 'metadata.labels["bad key!"]', "is not a valid key"),
    ],
    ids=[
        "job-name-5000",
        "jobset-name-254",
        "name-not-dns",
        "kueue-namespace-path",
        "kai-namespace-path",
        "grove-namespace-path",
        "kai-name-300",
        "kueue-labels-list",
        "grove-labels-list",
        "kai-annotation-mapping",
        "label-key",
    ],
)
def test_invalid_metadata_is_refused_naming_the_field(documents: list[Any], field: str, message: str) -> None:
    problems = problems_of(documents)
    assert field in problems, problems
    assert message in problems[field]


def test_a_pod_of_a_pod_group_is_checked_too() -> None:
    pods = example("kueue/pod-group.yaml")
    pods[0]["items"][1]["metadata"]["namespace"] = "Team C"
    assert "is not a valid namespace" in problems_of(pods)["items[1].metadata.namespace"]


@pytest.mark.parametrize("name", ["Racks", "../racks", "r" * 254, "racks_1"])
def test_a_topology_name_must_be_an_object_name(name: str) -> None:
    with pytest.raises(TopologySpecError, match=r"metadata\.name"):
        Topology.create(name, ["kubernetes.io/hostname"])


def test_a_duplicate_key_is_an_error_naming_both_lines() -> None:
    with pytest.raises(SpecError, match=r"job:4:1: duplicate key 'spec' \(first at line 3\)"):
        parse_documents(
            "kind: Job\nmetadata: {name: a}\nspec: {parallelism: 1}\nspec: {parallelism: 2}\n", source="job"
        )


def test_a_grove_cluster_topology_name_must_be_an_object_name() -> None:
    topology = copy.deepcopy(example("grove/topologies.yaml")[0])
    topology["metadata"]["name"] = "H100 Topology"
    answer = admit("ClusterTopology", "create", topology, existing=[], operator_config=None)
    assert any(p.path == "metadata.name" and "is not a valid name" in p.message for p in answer.problems)
