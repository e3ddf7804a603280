"""KAI through the CLI: `toposched place` on KAI workloads and PodGroup files, `compile`."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import yaml

from .conftest import EXAMPLES, SCHEMAS, Invoke, node_labels, run_process, validate

KAI = EXAMPLES / "kai"
ZONE, RACK = "topology.kubernetes.io/zone", "topology.kubernetes.io/rack"


def test_tfjob_places_four_segments_of_four_each_in_its_own_rack_all_in_one_zone() -> None:
    cluster = KAI / "tfjob-cluster.yaml"
    run = run_process("place", KAI / "tfjob-segments.yaml", "--cluster", cluster, "-o", "json")
    assert run.exit_code == 0, run.stderr
    doc = run.json()
    assert doc["placed"] is True and doc["policy"] == "binpack"
    labels = node_labels(cluster)
    by_set: dict[str, list[str]] = defaultdict(list)
    for pod in doc["pods"]:
        by_set[pod["podSet"]].append(pod["node"])
    segments = {name: nodes for name, nodes in by_set.items() if name.startswith("worker-")}
    assert sorted(segments) == ["worker-0", "worker-1", "worker-2", "worker-3"]
    assert all(len(set(nodes)) == 4 for nodes in segments.values())  # a whole node per worker
    racks = {name: {labels[n][RACK] for n in nodes} for name, nodes in segments.items()}
    assert all(len(found) == 1 for found in racks.values())
    assert len(set.union(*racks.values())) == 4  # each segment in its own rack
    # zone-1 is fuller (bin-packing's pick) but its running pods leave no room for 16 whole nodes
    assert {labels[pod["node"]][ZONE] for pod in doc["pods"]} == {"zone-2"}  # chief, ps too


def test_custom_kind_segments_by_pod_index_label(invoke: Invoke) -> None:
    cluster = KAI / "tfjob-cluster.yaml"
    run = invoke("place", KAI / "custom-segments.yaml", "--cluster", cluster, "-o", "json")
    assert run.exit_code == 0, run.stderr
    doc = run.json()
    assert doc["placed"] is True
    labels = node_labels(cluster)
    by_set: dict[str, list[str]] = defaultdict(list)
    for pod in doc["pods"]:
        by_set[pod["podSet"]].append(pod["node"])
    assert {name: len(nodes) for name, nodes in by_set.items()} == {"segment-0": 4, "segment-1": 2}
    racks = {name: {labels[n][RACK] for n in nodes} for name, nodes in by_set.items()}
    assert all(len(found) == 1 for found in racks.values())
    assert len({labels[pod["node"]][ZONE] for pod in doc["pods"]}) == 1
    names = {pod["name"]: pod["podSet"] for pod in doc["pods"]}
    assert names["trainer-3"] == "segment-0" and names["trainer-4"] == "segment-1"


def test_custom_kind_pod_not_owned_by_the_workload_is_rejected(invoke: Invoke, tmp_path: Path) -> None:
    docs = list(yaml.safe_load_all((KAI / "custom-segments.yaml").read_text(encoding="utf-8")))
    docs[2]["metadata"]["ownerReferences"][0]["name"] = "someone-else"
    spec = tmp_path / "custom.yaml"
    spec.write_text(yaml.safe_dump_all(docs), encoding="utf-8")
    run = invoke("place", spec, "--cluster", KAI / "tfjob-cluster.yaml", "-o", "json")
    assert run.exit_code == 2, run.stdout
    assert "pods[trainer-1].metadata.ownerReferences" in run.stderr and "Traceback" not in run.stderr


def test_seed_worked_example_fills_rack_a1_in_zone_a(invoke: Invoke) -> None:
    cluster = KAI / "zone-ab-cluster.yaml"
    run = invoke("place", KAI / "zone-ab-job.yaml", "--cluster", cluster, "-o", "json")
    assert run.exit_code == 0, run.stderr
    labels = node_labels(cluster)
    nodes = [p["node"] for p in run.json()["pods"]]
    assert len(nodes) == 3 and {labels[n][ZONE] for n in nodes} == {"zone-a"}
    racks = [labels[n][RACK] for n in nodes]
    assert racks.count("rack-a1") == 2 and len(set(racks)) == 2  # 2 racks, not 3


def test_seed_worked_example_third_pod_goes_to_rack_a2(invoke: Invoke) -> None:
    cluster = KAI / "zone-ab-cluster.yaml"
    run = invoke("place", KAI / "zone-ab-job.yaml", "--cluster", cluster, "-o", "json")
    labels = node_labels(cluster)
    assert sorted(labels[p["node"]][RACK] for p in run.json()["pods"]) == ["rack-a1", "rack-a1", "rack-a2"]


def test_policy_stays_selectable_for_kai(invoke: Invoke) -> None:
    run = invoke(
        "place",
        KAI / "zone-ab-job.yaml",
        "--cluster",
        KAI / "zone-ab-cluster.yaml",
        "-p",
        "bestfit",
        "-o",
        "json",
    )
    assert run.exit_code == 0 and run.json()["policy"] == "bestfit"


def test_podgroup_file_keeps_running_pods_and_subgroups(invoke: Invoke) -> None:
    run = invoke("place", KAI / "podgroup-pods.yaml", "--cluster", KAI / "zone-ab-cluster.yaml", "-o", "json")
    assert run.exit_code == 0, run.stderr
    pods = {p["name"]: (p["podSet"], p["node"]) for p in run.json()["pods"]}
    assert pods["worker-0"] == ("workers", "b1-1")  # already running there
    assert pods["worker-1"] == ("workers", "b1-2")  # same rack as the running worker
    assert pods["leader-0"][0] == "leader"


def test_podgroup_zone_follows_the_running_pod(invoke: Invoke, tmp_path: Path) -> None:
    docs = list(yaml.safe_load_all((KAI / "podgroup-pods.yaml").read_text(encoding="utf-8")))
    docs[0]["spec"]["topologyConstraint"] = {"topology": "cluster-topology", "requiredTopologyLevel": "zone"}
    spec = tmp_path / "pg.yaml"
    spec.write_text(yaml.safe_dump_all(docs), encoding="utf-8")
    run = invoke("place", spec, "--cluster", KAI / "zone-ab-cluster.yaml", "-o", "json")
    assert run.exit_code == 0, run.stdout


def test_unschedulable_kai_workload_exits_3(invoke: Invoke, tmp_path: Path) -> None:
    job = yaml.safe_load((KAI / "zone-ab-job.yaml").read_text(encoding="utf-8"))
    job["spec"]["parallelism"] = 7  # no zone has 7 free GPUs
    spec = tmp_path / "job.yaml"
    spec.write_text(yaml.safe_dump(job), encoding="utf-8")
    run = invoke("place", spec, "--cluster", KAI / "zone-ab-cluster.yaml", "-o", "json")
    assert run.exit_code == 3 and run.json()["placed"] is False


def test_compile_kai_prints_podgroup_and_pod_metadata(invoke: Invoke) -> None:
    run = invoke("compile", KAI / "tfjob-segments.yaml", "--cluster", KAI / "tfjob-cluster.yaml")
    assert run.exit_code == 0, run.stderr
    docs = list(yaml.safe_load_all(run.stdout))
    (group,) = [d for d in docs if d["kind"] == "PodGroup"]
    validate(group, SCHEMAS / "kai" / "scheduling.run.ai_podgroups.yaml")
    segments = [sg for sg in group["spec"]["subGroups"] if sg.get("parent") == "worker"]
    assert [(sg["name"], sg["minMember"]) for sg in segments] == [(f"worker-{i}", 4) for i in range(4)]
    assert {sg["topologyConstraint"]["requiredTopologyLevel"] for sg in segments} == {RACK}
    pods = {d["metadata"]["name"]: d["metadata"] for d in docs if d["kind"] == "Pod"}
    assert len(pods) == 19
    assert pods["distributed-training-worker-5"]["labels"] == {"kai.scheduler/subgroup-name": "worker-1"}
    assert pods["distributed-training-chief-0"]["annotations"] == {
        "pod-group-name": group["metadata"]["name"]
    }


def test_compile_kai_rejects_an_unsupported_kind(invoke: Invoke, tmp_path: Path) -> None:
    spec = tmp_path / "deploy.yaml"
    spec.write_text(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\n"
        "  annotations: {kai.scheduler/topology: t}\n",
        encoding="utf-8",
    )
    run = invoke("compile", spec)
    assert run.exit_code == 2 and "kind:" in run.stderr and "Traceback" not in run.stderr
