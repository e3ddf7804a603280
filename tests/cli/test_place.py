"""``toposched place`` on the bundled sample cluster: the JSON contract, exit codes and views.

Sample cluster (see ``toposched/samples/generate.py``)::

    zone z1, z2 → block zN-b1, zN-b2 → rack zN-bM-r1..r4 → 18 nodes x 4 GPUs
    z1-b1-r2 has exactly 16 whole nodes free; no rack has 20.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from .conftest import EXAMPLES, REPO, Invoke

HOSTNAME = "kubernetes.io/hostname"
RACK = "cloud.provider.com/topology-rack"
JobPath = Callable[[str], Path]

KEYS = {
    "placed",
    "search",
    "foundBy",
    "note",
    "policy",
    "topology",
    "pods",
    "assignments",
    "reason",
    "explanation",
}
EXPLANATION_KEYS = {
    "group", "level", "bestDomain", "fit", "needed", "unit", "totalNodes", "excluded", "shortfall", "layers",
    "budgetExhausted",
}  # fmt: skip


def check_contract(doc: dict[str, Any]) -> None:
    """Every key of the documented JSON object, with its type."""
    assert set(doc) == KEYS
    assert isinstance(doc["placed"], bool)
    assert isinstance(doc["policy"], str) and isinstance(doc["topology"], str)
    assert doc["search"] in ("faithful", "complete")
    assert doc["note"] is None or isinstance(doc["note"], str)
    for pod in doc["pods"]:
        assert set(pod) == {"name", "podSet", "index", "node"}
        assert isinstance(pod["name"], str) and isinstance(pod["podSet"], str)
        assert isinstance(pod["index"], int) and isinstance(pod["node"], str)
    for assignment in doc["assignments"].values():
        assert set(assignment) == {"levels", "domains"}
        assert all(isinstance(level, str) for level in assignment["levels"])
        for domain in assignment["domains"]:
            assert set(domain) == {"values", "count"}
            assert len(domain["values"]) == len(assignment["levels"]) and isinstance(domain["count"], int)
    if doc["placed"]:
        assert doc["foundBy"] in ("faithful", "complete")
        assert doc["reason"] is None and doc["explanation"] is None
        assert sum(d["count"] for a in doc["assignments"].values() for d in a["domains"]) == len(doc["pods"])
    else:
        assert doc["pods"] == [] and doc["assignments"] == {} and doc["foundBy"] is None
        assert isinstance(doc["reason"], str) and doc["reason"]
        assert set(doc["explanation"]) == EXPLANATION_KEYS


def place_json(invoke: Invoke, *args: str | Path) -> tuple[int, dict[str, Any]]:
    run = invoke("place", *args, "-o", "json")
    assert "Traceback" not in run.stderr
    doc = json.loads(run.stdout)
    check_contract(doc)
    return run.exit_code, doc


def rack_of(node: str) -> str:
    return node.rsplit("-", 1)[0]  # z1-b1-r2-n07 → z1-b1-r2


def test_rack_required_job_lands_in_one_rack(
    invoke: Invoke, sample_cluster: Path, sample_job: JobPath
) -> None:
    code, doc = place_json(invoke, sample_job("1-rack-required.yaml"), "--cluster", sample_cluster)
    assert code == 0 and doc["placed"]
    assert (doc["policy"], doc["topology"]) == ("mixed", "default")
    assert len(doc["pods"]) == 16
    assert [p["index"] for p in doc["pods"]] == list(range(16))
    assert len({rack_of(p["node"]) for p in doc["pods"]}) == 1
    assert len({p["node"] for p in doc["pods"]}) == 16  # one 4-GPU pod per 4-GPU node
    assert doc["assignments"]["main"]["levels"] == [HOSTNAME]


def test_tightest_rack_is_chosen_by_bestfit(
    invoke: Invoke, sample_cluster: Path, sample_job: JobPath
) -> None:
    _, doc = place_json(invoke, sample_job("1-rack-required.yaml"), "--cluster", sample_cluster)
    assert {rack_of(p["node"]) for p in doc["pods"]} == {"z1-b1-r2"}


def test_block_job_with_rack_slices(invoke: Invoke, sample_cluster: Path, sample_job: JobPath) -> None:
    code, doc = place_json(invoke, sample_job("2-block-rack-slices.yaml"), "--cluster", sample_cluster)
    assert code == 0
    pods = sorted(doc["pods"], key=lambda p: p["index"])
    assert len({p["node"].split("-")[1] for p in pods}) == 1  # one block
    for start in range(0, 48, 16):
        assert len({rack_of(p["node"]) for p in pods[start : start + 16]}) == 1  # each slice in one rack


def test_job_that_cannot_fit_exits_3_and_explains(
    invoke: Invoke, sample_cluster: Path, sample_job: JobPath
) -> None:
    code, doc = place_json(invoke, sample_job("4-too-big-for-a-rack.yaml"), "--cluster", sample_cluster)
    assert code == 3 and not doc["placed"]
    explanation = doc["explanation"]
    assert explanation["needed"] == 20 and explanation["fit"] < 20
    assert explanation["level"] == RACK


def test_yaml_output_is_the_json_document(invoke: Invoke, sample_cluster: Path, sample_job: JobPath) -> None:
    job = sample_job("4-too-big-for-a-rack.yaml")
    _, doc = place_json(invoke, job, "--cluster", sample_cluster)
    run = invoke("place", job, "--cluster", sample_cluster, "-o", "yaml")
    assert run.exit_code == 3
    assert yaml.safe_load(run.stdout) == doc


def test_table_view_shows_tree_and_summary(invoke: Invoke, sample_cluster: Path, sample_job: JobPath) -> None:
    run = invoke("place", sample_job("1-rack-required.yaml"), "--cluster", sample_cluster)
    assert run.exit_code == 0
    out = run.stdout
    for text in (
        "zone z1",
        "block z1-b1",
        "rack z1-b1-r2",
        "z1-b1-r2-n01",
        "main[0]",
        "GPU 64 → 0",
        "placed 16 pods",
    ):
        assert text in out, text


def test_table_view_failure_panel(invoke: Invoke, sample_cluster: Path, sample_job: JobPath) -> None:
    run = invoke("place", sample_job("4-too-big-for-a-rack.yaml"), "--cluster", sample_cluster)
    assert run.exit_code == 3
    assert "cannot place research/train-rack-20" in run.stdout
    assert "of 20 pods" in run.stdout


@pytest.mark.parametrize("policy", ["mixed", "bestfit", "leastfree", "balanced", "binpack"])
def test_policy_option(policy: str, invoke: Invoke, sample_cluster: Path, sample_job: JobPath) -> None:
    code, doc = place_json(
        invoke, sample_job("3-preferred-spill.yaml"), "--cluster", sample_cluster, "--policy", policy
    )
    assert code == 0
    assert doc["policy"] == policy
    assert len(doc["pods"]) == 24


def test_topology_by_name_is_the_default(invoke: Invoke, sample_cluster: Path, sample_job: JobPath) -> None:
    job = sample_job("1-rack-required.yaml")
    assert place_json(invoke, job, "--cluster", sample_cluster, "--topology", "default") == place_json(
        invoke, job, "--cluster", sample_cluster
    )


def test_topology_from_a_file(
    invoke: Invoke, tmp_path: Path, sample_cluster: Path, sample_job: JobPath
) -> None:
    levels = ["topology.kubernetes.io/zone", "cloud.provider.com/topology-block", RACK]
    topology = {
        "apiVersion": "kueue.x-k8s.io/v1beta1",
        "kind": "Topology",
        "metadata": {"name": "racks"},
        "spec": {"levels": [{"nodeLabel": level} for level in levels]},
    }
    path = tmp_path / "racks.yaml"
    path.write_text(yaml.safe_dump(topology))
    code, doc = place_json(
        invoke, sample_job("1-rack-required.yaml"), "--cluster", sample_cluster, "--topology", path
    )
    assert code == 0
    assert doc["topology"] == "racks"
    # Without hostname as the lowest level, assignments carry every level with full paths.
    assert doc["assignments"]["main"]["levels"] == levels


def test_job_from_stdin(invoke: Invoke, sample_cluster: Path, sample_job: JobPath) -> None:
    text = sample_job("1-rack-required.yaml").read_text()
    run = invoke("place", "-", "--cluster", sample_cluster, "-o", "json", stdin=text)
    assert run.exit_code == 0
    assert len(json.loads(run.stdout)["pods"]) == 16


def test_cluster_as_a_multi_document_stream(
    invoke: Invoke, tmp_path: Path, sample_cluster: Path, sample_job: JobPath
) -> None:
    items = yaml.safe_load(sample_cluster.read_text())["items"]
    stream = tmp_path / "stream.yaml"
    stream.write_text(yaml.safe_dump_all(items))
    job = sample_job("2-block-rack-slices.yaml")
    assert place_json(invoke, job, "--cluster", stream) == place_json(
        invoke, job, "--cluster", sample_cluster
    )


@pytest.mark.skipif(not EXAMPLES.is_dir(), reason="examples/kueue is not in this checkout")
@pytest.mark.parametrize("name", sorted(p.name for p in EXAMPLES.glob("*.yaml")) if EXAMPLES.is_dir() else [])
def test_example_workloads_on_the_sample_cluster(name: str, invoke: Invoke, sample_cluster: Path) -> None:
    code, doc = place_json(invoke, EXAMPLES / name, "--cluster", sample_cluster)
    assert code == 0, doc["reason"]


SMALL_H100 = REPO / "examples" / "clusters" / "h100-small.yaml"


@pytest.mark.skipif(not SMALL_H100.is_file(), reason="examples/clusters is not in this checkout")
def test_small_cluster_with_two_topologies(invoke: Invoke) -> None:
    """``examples/clusters/h100-small.yaml``: 16 nodes, one NotReady, one tainted, two Topologies."""
    job = EXAMPLES / "pytorchjob.yaml"
    run = invoke("place", job, "--cluster", SMALL_H100, "-o", "json")
    assert run.exit_code == 2
    assert run.stderr.startswith("--topology: is needed: the cluster defines default, racks")

    for topology in ("default", "racks"):
        code, doc = place_json(invoke, job, "--cluster", SMALL_H100, "--topology", topology)
        assert code == 0 and doc["topology"] == topology
        used = {pod["node"] for pod in doc["pods"]}
        assert not used & {"h100-b1-r2-n3", "h100-b2-r1-n1"}  # NotReady, tainted
        assert "h100-b1-r1-n1" not in used  # its 8 GPUs are taken by a notebook
