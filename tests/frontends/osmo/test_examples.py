"""The design's four use cases (``examples/osmo``) compile to the PodGroups the design
describes; emitted PodGroups and Topologies validate against the KAI CRD schemas."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from toposched.frontends.osmo import compile_osmo
from toposched.intake.cluster import load_cluster
from toposched.intake.parse import parse_documents

ROOT = Path(__file__).resolve().parents[3]
EXAMPLES = ROOT / "examples" / "osmo"
SCHEMAS = ROOT.parent / "shared" / "schemas" / "kai"
TOPO = "osmo-pool-osmo-workflows-my-pool-topology"
CLIQUE, ZONE, SPINE, RACK = (
    "nvidia.com/gpu-clique",
    "topology.kubernetes.io/zone",
    "topology.kubernetes.io/spine",
    "topology.kubernetes.io/rack",
)


def leaf(name: str, level: str, required: bool = True) -> dict[str, Any]:
    kind = "requiredTopologyLevel" if required else "preferredTopologyLevel"
    return {"name": name, "minMember": 4, "topologyConstraint": {"topology": TOPO, kind: level}}


BASE = {"queue": "osmo-pool-osmo-workflows-my-pool", "priorityClassName": "osmo-normal"}
USE_CASES = [
    pytest.param(
        "1-single-nvl72-rack",
        {**BASE, "minMember": 4, "topologyConstraint": {"topology": TOPO, "requiredTopologyLevel": CLIQUE}},
        id="use-case-1-single-nvl72-rack",
    ),
    pytest.param(
        "2-multiple-nvl72-racks",
        {**BASE, "subGroups": [leaf("model-1-group", CLIQUE), leaf("model-2-group", CLIQUE)]},
        id="use-case-2-multiple-nvl72-racks",
    ),
    pytest.param(
        "3-multiple-nvl72-same-zone",
        {
            **BASE,
            "topologyConstraint": {"topology": TOPO, "requiredTopologyLevel": ZONE},
            "subGroups": [
                leaf("workflow-group-model-1-group", CLIQUE),
                leaf("workflow-group-model-2-group", CLIQUE),
            ],
        },
        id="use-case-3-multiple-nvl72-same-zone",
    ),
    pytest.param(
        "4-best-effort",
        {
            **BASE,
            "topologyConstraint": {"topology": TOPO, "preferredTopologyLevel": SPINE},
            "subGroups": [
                leaf("workflow-group-model-1-group", RACK, False),
                leaf("workflow-group-model-2-group", RACK, False),
            ],
        },
        id="use-case-4-best-effort",
    ),
]


def compiled(name: str) -> dict[str, Any]:
    workflow = EXAMPLES / f"{name}.workflow.yaml"
    pool = EXAMPLES / f"{name}.pool.yaml"
    return compile_osmo(*(parse_documents(p.read_text(), source=p.name)[0] for p in (workflow, pool)))


def crd_schema(file: str) -> dict[str, Any]:
    crd = yaml.safe_load((SCHEMAS / file).read_text())
    return crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]  # type: ignore[no-any-return]  # parsed YAML


@pytest.mark.parametrize(("name", "spec"), USE_CASES)
def test_use_case_compiles_to_the_designed_podgroup(name: str, spec: dict[str, Any]) -> None:
    out = compiled(name)
    assert out["podGroups"]["group1"]["spec"] == spec
    subgroups = {sg["name"] for sg in spec.get("subGroups", [])}
    for pod in out["pods"].values():
        meta = pod["metadata"]
        assert meta["annotations"]["pod-group-name"] == out["podGroups"]["group1"]["metadata"]["name"]
        assert (meta["labels"].get("kai.scheduler/subgroup-name") in subgroups) is bool(subgroups)


@pytest.mark.parametrize(("name", "spec"), USE_CASES)
def test_use_case_cluster_carries_the_pool_topology(name: str, spec: dict[str, Any]) -> None:
    cluster = load_cluster((EXAMPLES / f"{name}.cluster.yaml").read_text())
    (topology,) = cluster.topologies
    out = compiled(name)
    assert topology.name == out["topology"]["metadata"]["name"] == TOPO
    assert list(topology.levels) == [lv["nodeLabel"] for lv in out["topology"]["spec"]["levels"]]
    assert all(set(topology.levels) <= set(node.labels) for node in cluster.nodes)


@pytest.mark.skipif(not SCHEMAS.is_dir(), reason="KAI schemas not available")
@pytest.mark.parametrize(("name", "spec"), USE_CASES)
def test_emitted_objects_match_the_kai_schemas(name: str, spec: dict[str, Any]) -> None:
    out = compiled(name)
    for podgroup in out["podGroups"].values():
        jsonschema.validate(podgroup, crd_schema("scheduling.run.ai_podgroups.yaml"))
    jsonschema.validate(out["topology"], crd_schema("kai.scheduler_topologies.yaml"))


@pytest.mark.skipif(not SCHEMAS.is_dir(), reason="KAI schemas not available")
def test_schema_check_catches_a_broken_podgroup() -> None:
    podgroup = compiled("2-multiple-nvl72-racks")["podGroups"]["group1"]
    podgroup["spec"]["subGroups"][0]["minMember"] = "four"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(podgroup, crd_schema("scheduling.run.ai_podgroups.yaml"))
