"""OSMO through the CLI: the seed's four use cases placed and compiled, `pool keys`."""

from __future__ import annotations

from collections import defaultdict

import pytest
import yaml

from .conftest import EXAMPLES, SCHEMAS, Invoke, node_labels, run_process, validate

OSMO = EXAMPLES / "osmo"
CLIQUE, ZONE = "nvidia.com/gpu-clique", "topology.kubernetes.io/zone"
SPINE, RACK = "topology.kubernetes.io/spine", "topology.kubernetes.io/rack"
CASES = ["1-single-nvl72-rack", "2-multiple-nvl72-racks", "3-multiple-nvl72-same-zone", "4-best-effort"]


def place(
    invoke: Invoke, case: str, cluster: str | None = None
) -> tuple[dict[str, str], dict[str, dict[str, str]]]:
    cluster_file = OSMO / (cluster or f"{case}.cluster.yaml")
    run = invoke(
        "place", OSMO / f"{case}.workflow.yaml", "--pool", OSMO / f"{case}.pool.yaml",
        "--cluster", cluster_file, "-o", "json",
    )  # fmt: skip
    assert run.exit_code == 0, run.stdout + run.stderr
    doc = run.json()
    assert {p["podSet"] for p in doc["pods"]} <= podgroup_names(case)  # podSet = the leaf (sub)group
    return {p["name"]: p["node"] for p in doc["pods"]}, node_labels(cluster_file)


def podgroup_names(case: str) -> set[str]:
    """The names of the PodGroups ``compile`` prints for a case and of their subgroups."""
    run = run_process("compile", OSMO / f"{case}.workflow.yaml", "--pool", OSMO / f"{case}.pool.yaml")
    groups = yaml.safe_load(run.stdout)["podGroups"].values()
    return {g["metadata"]["name"] for g in groups} | {
        s["name"] for g in groups for s in g["spec"].get("subGroups", [])
    }


def test_use_case_1_all_tasks_on_one_nvl72_rack(invoke: Invoke) -> None:
    nodes, labels = place(invoke, "1-single-nvl72-rack")
    assert len(nodes) == 4 and len({labels[n][CLIQUE] for n in nodes.values()}) == 1


def test_use_case_2_each_model_on_its_own_gpu_clique(invoke: Invoke) -> None:
    nodes, labels = place(invoke, "2-multiple-nvl72-racks")
    for model in ("model1", "model2"):
        assert len({labels[n][CLIQUE] for task, n in nodes.items() if task.startswith(model)}) == 1


def test_use_case_3_every_task_in_zone_a() -> None:
    case = "3-multiple-nvl72-same-zone"
    run = run_process(
        "place", OSMO / f"{case}.workflow.yaml", "--pool", OSMO / f"{case}.pool.yaml",
        "--cluster", OSMO / f"{case}.cluster.yaml", "-o", "json",
    )  # fmt: skip
    assert run.exit_code == 0, run.stderr
    labels = node_labels(OSMO / f"{case}.cluster.yaml")
    pods = run.json()["pods"]
    assert len(pods) == 8 and {labels[p["node"]][ZONE] for p in pods} == {"a"}
    assert sorted(p["name"] for p in pods) == sorted(
        f"model{m}-shard{s}" for m in (1, 2) for s in range(1, 5)
    )
    for model in ("model1", "model2"):
        assert len({labels[p["node"]][CLIQUE] for p in pods if p["name"].startswith(model)}) == 1


def test_use_case_4_preferences_met_on_the_first_cluster(invoke: Invoke) -> None:
    nodes, labels = place(invoke, "4-best-effort")
    assert len({labels[n][SPINE] for n in nodes.values()}) == 1
    for model in ("model1", "model2"):
        assert len({labels[n][RACK] for task, n in nodes.items() if task.startswith(model)}) == 1


def test_use_case_4_preferences_relaxed_on_the_second_cluster_still_scheduled(invoke: Invoke) -> None:
    nodes, labels = place(invoke, "4-best-effort", "4-best-effort.relaxed.cluster.yaml")
    assert len(nodes) == 8
    assert len({labels[n][SPINE] for n in nodes.values()}) == 2  # no spine holds all 8
    racks: dict[str, set[str]] = defaultdict(set)
    for task, node in nodes.items():
        racks[task[:6]].add(labels[node][RACK])
    assert all(len(r) == 2 for r in racks.values())  # no rack holds a model instance


@pytest.mark.parametrize("case", CASES)
def test_compile_osmo_prints_the_seed_podgroup(invoke: Invoke, case: str) -> None:
    run = invoke("compile", OSMO / f"{case}.workflow.yaml", "--pool", OSMO / f"{case}.pool.yaml")
    assert run.exit_code == 0, run.stderr
    (out,) = yaml.safe_load_all(run.stdout)
    group = out["podGroups"]["group1"]
    validate(group, SCHEMAS / "kai" / "scheduling.run.ai_podgroups.yaml")
    validate(out["topology"], SCHEMAS / "kai" / "kai.scheduler_topologies.yaml")
    assert out["topology"]["metadata"]["name"] == "osmo-pool-osmo-workflows-my-pool-topology"
    spec = group["spec"]
    leaves = {sg["name"]: sg for sg in spec.get("subGroups", [])}
    if case == "1-single-nvl72-rack":
        assert spec["minMember"] == 4 and spec["topologyConstraint"]["requiredTopologyLevel"] == CLIQUE
    elif case == "4-best-effort":
        assert spec["topologyConstraint"]["preferredTopologyLevel"] == SPINE
        assert {sg["topologyConstraint"]["preferredTopologyLevel"] for sg in leaves.values()} == {RACK}
    else:
        assert [sg["minMember"] for sg in leaves.values()] == [4, 4]
        assert {sg["topologyConstraint"]["requiredTopologyLevel"] for sg in leaves.values()} == {CLIQUE}
        if case.startswith("3"):
            assert spec["topologyConstraint"]["requiredTopologyLevel"] == ZONE
    labels = out["pods"]["model1-shard1"]["metadata"]["labels"]
    assert labels["kai.scheduler/queue"] == "osmo-pool-osmo-workflows-my-pool"


def test_pool_keys_lists_key_label_order(invoke: Invoke) -> None:
    run = invoke("pool", "keys", OSMO / "4-best-effort.pool.yaml", "-o", "json")
    assert run.exit_code == 0
    assert run.json()["keys"] == [
        {"key": "zone", "label": ZONE, "order": 0},
        {"key": "spine", "label": SPINE, "order": 1},
        {"key": "rack", "label": RACK, "order": 2},
    ]
    table = invoke("pool", "keys", OSMO / "4-best-effort.pool.yaml").stdout.splitlines()
    assert table[0].split() == ["key", "label", "order"] and table[2].split() == ["spine", SPINE, "1"]


def test_workflow_without_pool_is_invalid(invoke: Invoke) -> None:
    case = "1-single-nvl72-rack"
    run = invoke("place", OSMO / f"{case}.workflow.yaml", "--cluster", OSMO / f"{case}.cluster.yaml")
    assert run.exit_code == 2 and run.stderr.startswith("--pool: is missing")
