"""The KAI PodGroup of a compiled gang, validated against the CRD's openAPIV3Schema."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jsonschema  # type: ignore[import-untyped]  # no stubs among the test dependencies
import pytest
import yaml

from toposched.emit.kai import podgroup_object
from toposched.frontends.kai import compile_workload, to_gang, validate_podgroup
from toposched.model import Gang, Group, PodSpec
from toposched.wire.kai import parse_podgroup

SCHEMAS = Path(__file__).resolve().parents[3].parent / "shared" / "schemas" / "kai"


def schema(file: str) -> dict[str, Any]:
    if not (SCHEMAS / file).is_file():
        pytest.skip(f"no {SCHEMAS / file}")
    crd = yaml.safe_load((SCHEMAS / file).read_text(encoding="utf-8"))
    version = next(v for v in crd["spec"]["versions"] if v.get("served"))
    return dict(version["schema"]["openAPIV3Schema"])


def check_podgroup(obj: dict[str, Any]) -> None:
    jsonschema.validate(obj, schema("scheduling.run.ai_podgroups.yaml"))


def test_podgroup_from_gang_tree() -> None:
    leaf = Group("Worker_A", required="example.com/rack", pods=(PodSpec("a", 0), PodSpec("b", 1)))
    elastic = Group("extra", min_member=0, pods=(PodSpec("c", 2),))
    mid = Group("workers", preferred="example.com/zone", topology="other", children=(leaf, elastic))
    gang = Gang(
        "job", Group("root", required="example.com/zone", children=(mid,)), namespace="ns", topology="t"
    )
    obj = podgroup_object(gang, queue="q", priority_class_name="high")
    check_podgroup(obj)
    spec = obj["spec"]
    assert spec["topologyConstraint"] == {"topology": "t", "requiredTopologyLevel": "example.com/zone"}
    assert spec["subGroups"] == [
        {
            "name": "workers",
            "topologyConstraint": {"topology": "other", "preferredTopologyLevel": "example.com/zone"},
        },
        {
            "name": "worker-a",
            "parent": "workers",
            "minMember": 2,
            "topologyConstraint": {"topology": "t", "requiredTopologyLevel": "example.com/rack"},
        },
        {"name": "extra", "parent": "workers", "minMember": 0},
    ]
    assert "minMember" not in spec
    assert validate_podgroup(obj).accepted  # what we emit, KAI's webhook admits


def test_flat_podgroup_min_member() -> None:
    gang = Gang("flat", Group("root", pods=(PodSpec("a", 0), PodSpec("b", 1))))
    obj = podgroup_object(gang)
    check_podgroup(obj)
    assert obj["spec"] == {"queue": "default-queue", "minMember": 2}
    assert podgroup_object(Gang("f", gang.root, min_member=1))["spec"]["minMember"] == 1


def test_compiled_podgroups_match_the_schema() -> None:
    tfjob = {
        "apiVersion": "kubeflow.org/v1",
        "kind": "TFJob",
        "metadata": {
            "name": "t",
            "uid": "1",
            "annotations": {
                "kai.scheduler/topology": "c",
                "kai.scheduler/topology-required-placement": "zone",
            },
        },
        "spec": {
            "tfReplicaSpecs": {
                "Worker": {
                    "replicas": 8,
                    "template": {
                        "metadata": {
                            "annotations": {
                                "kai.scheduler/segment-size": "4",
                                "kai.scheduler/segment-topology-required-placement": "rack",
                            }
                        }
                    },
                }
            }
        },
    }
    group = compile_workload(tfjob).pod_group
    obj = group.to_object()
    check_podgroup(obj)
    assert parse_podgroup(obj) == group
    pods = [(f"worker-{i // 4}", PodSpec(f"w{i}", i)) for i in range(8)]
    check_podgroup(podgroup_object(to_gang(group, pods)))
