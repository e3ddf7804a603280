"""Cluster dumps read as a stream: kubectl's key order (items before kind), JSON dumps, and the
bounds of the text kept on the JSON path too."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from toposched.intake.cluster import load_cluster, load_cluster_report
from toposched.model import ClusterSpecError

RACK = "example.com/rack"


def node(name: str, rack: str, *, kind: bool = True) -> dict[str, Any]:
    obj: dict[str, Any] = {
        "apiVersion": "v1",
        "metadata": {"name": name, "labels": {RACK: rack, "kubernetes.io/hostname": name}},
        "spec": {"taints": [{"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}]},
        "status": {
            "allocatable": {"cpu": "95500m", "memory": "500Gi", "nvidia.com/gpu": "8", "pods": "110"},
            "conditions": [{"type": "Ready", "status": "True"}],
        },
    }
    return {"kind": "Node", **obj} if kind else obj


def pod(name: str, on: str, phase: str = "Running") -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "ml", "ownerReferences": [{"kind": "Job", "name": "train"}]},
        "spec": {
            "nodeName": on,
            "containers": [{"name": "c", "resources": {"requests": {"nvidia.com/gpu": "4"}}}],
        },
        "status": {"phase": phase},
    }


TOPOLOGY = {
    "apiVersion": "kueue.x-k8s.io/v1beta1",
    "kind": "Topology",
    "metadata": {"name": "t"},
    "spec": {"levels": [{"nodeLabel": RACK}, {"nodeLabel": "kubernetes.io/hostname"}]},
}
DUMP = {
    "apiVersion": "v1",
    "items": [node("n1", "r1"), node("n2", "r2"), pod("p1", "n1"), pod("p2", "n2", "Succeeded"), TOPOLOGY],
    "kind": "List",
    "metadata": {"resourceVersion": ""},
}


@pytest.mark.parametrize("indent", [None, 4])
def test_yaml_and_json_of_the_same_objects_load_the_same_cluster(indent: int | None) -> None:
    from_yaml = load_cluster_report(yaml.safe_dump(DUMP))  # keys sorted: items before kind
    from_json = load_cluster_report(json.dumps(DUMP, indent=indent).encode())
    assert from_yaml == from_json
    cluster = from_json[0]
    assert [n.name for n in cluster.nodes] == ["n1", "n2"]
    assert [(p.name, p.node) for p in cluster.pods] == [("p1", "n1")]
    assert [t.name for t in cluster.topologies] == ["t"]


@pytest.mark.parametrize("render", [yaml.safe_dump, json.dumps], ids=["yaml", "json"])
def test_typed_list_items_wait_for_a_kind_given_after_them(render: Any) -> None:
    node_list = {"apiVersion": "v1", "items": [node("a", "r1", kind=False)], "kind": "NodeList"}
    assert [n.name for n in load_cluster(render(node_list)).nodes] == ["a"]


def test_a_document_with_items_must_be_a_list() -> None:
    with pytest.raises(ClusterSpecError) as err:
        load_cluster(json.dumps({"items": [node("a", "r1")], "kind": "Node", "metadata": {"name": "x"}}))
    assert [p.path for p in err.value.problems] == ["kind"]
    assert "set kind: List" in str(err.value)


def test_later_documents_are_named_in_locations() -> None:
    text = yaml.safe_dump(DUMP) + "---\n" + yaml.safe_dump({"kind": "List", "items": [{"kind": "Node"}]})
    with pytest.raises(ClusterSpecError) as err:
        load_cluster(text)
    assert [p.path for p in err.value.problems] == ["documents[1].items[0].metadata.name"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"items": [], "kind": "List", "items": []}', "dump:1:31: duplicate key 'items' (first at line 1)"),
        ('{"items": [' + "[" * 80 + "]" * 80 + '], "kind": "List"}', "is nested more than 64 levels deep"),
        ('{"items": [{"kind": "Node"}], "kind": "List",]', "dump:1:"),
    ],
    ids=["duplicate-key", "nesting", "syntax"],
)
def test_json_dumps_are_bounded_like_yaml(text: str, expected: str) -> None:
    with pytest.raises(ClusterSpecError, match=re.escape(expected)):
        load_cluster_report(text, source="dump")


def test_place_reads_a_json_cluster(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from toposched.cli.main import app

    sample = Path(__file__).resolve().parents[3] / "src/toposched/samples"
    as_json = tmp_path / "cluster.json"
    as_json.write_text(json.dumps(yaml.safe_load((sample / "cluster.yaml").read_text())), "utf-8")
    job = sample / "jobs" / sorted(p.name for p in (sample / "jobs").iterdir())[0]
    runs = [
        CliRunner().invoke(app, ["place", str(job), "--cluster", str(c), "-o", "json"])
        for c in (sample / "cluster.yaml", as_json)
    ]
    assert runs[0].exit_code == runs[1].exit_code
    assert runs[0].stdout == runs[1].stdout
