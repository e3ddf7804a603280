"""``toposched.load_workload``: a workload file's text through intake's parser and the front-end
registry, so every front end's input loads (it was the Kueue front end's alone)."""

from __future__ import annotations

from pathlib import Path

import pytest

import toposched
from toposched.frontends.registry import CompileContext, default_registry
from toposched.intake.cluster import load_cluster
from toposched.intake.parse import parse_documents
from toposched.model import Topology, WorkloadSpecError

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
SAMPLE = EXAMPLES.parent / "src/toposched/samples/cluster.yaml"


def only_topology(cluster: str) -> Topology:
    (topology,) = load_cluster((EXAMPLES / cluster).read_text(encoding="utf-8")).topologies
    return topology


@pytest.mark.parametrize(
    ("workload", "cluster", "frontend"),
    [
        ("kueue/job-rack.yaml", None, "kueue"),
        ("kai/tfjob-segments.yaml", "kai/tfjob-cluster.yaml", "kai"),
        ("kube/job-one-rack.yaml", None, "kube"),
    ],
    ids=["kueue", "kai", "kube"],
)
def test_every_front_end_loads_from_text_as_the_registry_compiles(
    workload: str, cluster: str | None, frontend: str
) -> None:
    text = (EXAMPLES / workload).read_text(encoding="utf-8")
    topology = only_topology(cluster) if cluster else None
    documents = parse_documents(text, source=workload)
    registry = default_registry()
    assert registry.choose(documents).name == frontend
    context = CompileContext(topologies=(topology,) if topology else (), topology=topology)
    assert (
        toposched.load_workload(text, topology, source=workload) == registry.compile(documents, context).gang
    )


def test_a_grove_podcliqueset_loads_against_the_topology_given() -> None:
    (h100, *_) = load_cluster((EXAMPLES / "grove/topologies.yaml").read_text(encoding="utf-8")).topologies
    text = (EXAMPLES / "grove/llama-70b-h100.yaml").read_text(encoding="utf-8")
    gang = toposched.load_workload(text, h100)
    assert gang.topology == h100.name


def test_a_syntax_error_names_the_source_and_line() -> None:
    with pytest.raises(WorkloadSpecError) as err:
        toposched.load_workload("kind: Job\nspec: [a\n", source="job.yaml")
    assert err.value.problems[0].path.startswith("job.yaml:")
