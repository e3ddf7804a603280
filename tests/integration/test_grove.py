"""Grove through the CLI: each PodCliqueSet placed where its topology says, `compile`,
`topology usage`."""

from __future__ import annotations

from collections import defaultdict

import yaml

from .conftest import EXAMPLES, SCHEMAS, Invoke, node_labels, run_process, validate

GROVE = EXAMPLES / "grove"
CLUSTER, TOPOLOGIES = GROVE / "cluster.yaml", GROVE / "topologies.yaml"
H100_RACK, BLOCK, NVL = "example.com/h100-rack", "example.com/nvl-block", "example.com/nvlink-domain"


def test_h100_podcliqueset_lands_on_h100_nodes_in_one_rack_decode_in_one_host() -> None:
    run = run_process(
        "place", GROVE / "llama-70b-h100.yaml", "--cluster", CLUSTER, "--topology", TOPOLOGIES, "-o", "json"
    )
    assert run.exit_code == 0, run.stderr
    doc = run.json()
    assert doc["topology"] == "h100-topology"
    labels = node_labels(CLUSTER)
    nodes = [p["node"] for p in doc["pods"]]
    assert len(nodes) == 3 and all(H100_RACK in labels[n] for n in nodes)
    assert len({labels[n][H100_RACK] for n in nodes}) == 1  # the replica's packDomain: rack
    decode = {p["node"] for p in doc["pods"] if p["podSet"] == "llama-70b-h100-0-decode"}
    assert len(decode) == 1  # the clique's packDomain: host


def test_gb200_podcliqueset_lands_in_one_block_each_scaling_replica_in_one_nvl72_rack(invoke: Invoke) -> None:
    run = invoke(
        "place", GROVE / "llama-405b-gb200.yaml", "--cluster", CLUSTER, "--topology", TOPOLOGIES, "-o", "json"
    )
    assert run.exit_code == 0, run.stderr
    doc = run.json()
    assert doc["topology"] == "gb200-topology"
    labels = node_labels(CLUSTER)
    by_set: dict[str, set[str]] = defaultdict(set)
    for pod in doc["pods"]:
        by_set[pod["podSet"]].add(pod["node"])
    assert sum(len(v) for v in by_set.values()) == 36
    every = set().union(*by_set.values())
    assert all(BLOCK in labels[n] for n in every) and len({labels[n][BLOCK] for n in every}) == 1
    for name, nodes in by_set.items():
        assert name.startswith("llama-405b-gb200-0-model-parallel-")
        assert len({labels[n][NVL] for n in nodes}) == 1, name


def test_missing_topology_is_invalid(invoke: Invoke) -> None:
    run = invoke("place", GROVE / "llama-70b-h100.yaml", "--cluster", CLUSTER)
    assert run.exit_code == 2 and "h100-topology" in run.stderr


def test_compile_grove_emits_podgangs_and_kai_podgroups_matching_the_schemas(invoke: Invoke) -> None:
    run = invoke("compile", GROVE / "llama-405b-gb200.yaml", "--topology", TOPOLOGIES)
    assert run.exit_code == 0, run.stderr
    docs = list(yaml.safe_load_all(run.stdout))
    gangs = [d for d in docs if d["kind"] == "PodGang"]
    groups = [d for d in docs if d["kind"] == "PodGroup"]
    assert len(gangs) == len(groups) == 1
    for gang in gangs:
        validate(gang, SCHEMAS / "grove" / "podgangs.scheduler.grove.io.head.yaml")
    for group in groups:
        validate(group, SCHEMAS / "kai" / "scheduling.run.ai_podgroups.yaml")
    assert gangs[0]["spec"]["topologyConstraint"]["packConstraint"]["required"] == BLOCK
    assert groups[0]["spec"]["topologyConstraint"]["topology"] == "gb200-topology"


def test_topology_usage_lists_workloads_per_topology(invoke: Invoke, tmp_path) -> None:  # type: ignore[no-untyped-def]
    default = tmp_path / "simple.yaml"
    default.write_text(
        "apiVersion: grove.io/v1alpha1\nkind: PodCliqueSet\nmetadata: {name: simple-inference, namespace: default}\n"
        "spec:\n  replicas: 1\n  template:\n    topologyConstraint: {packDomain: rack}\n"
        "    cliques: [{name: w, spec: {replicas: 1, podSpec: {containers: [{name: w, image: w}]}}}]\n",
        encoding="utf-8",
    )
    run = invoke("topology", "usage", GROVE / "llama-70b-h100.yaml", GROVE / "llama-405b-gb200.yaml", default)
    assert run.exit_code == 0, run.stderr
    assert [line.split() for line in run.stdout.splitlines()] == [
        ["gb200-topology", "default/llama-405b-gb200"],
        ["grove-topology", "(default)", "default/simple-inference"],
        ["h100-topology", "default/llama-70b-h100"],
    ]
