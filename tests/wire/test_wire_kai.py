"""KAI wire objects: every Topology and PodGroup the builders write validates against the KAI
CRD schemas (as KAI ships them and as Grove vendors them), and parsing gives back what was written."""

from __future__ import annotations

from pathlib import Path

import pytest

from integration.conftest import SCHEMAS, validate
from toposched.model import Topology
from toposched.wire.kai import (
    OwnerReference,
    PodGroup,
    SubGroup,
    TopologyConstraint,
    parse_podgroup,
    parse_topology,
    pod_metadata_patch,
    subgroup_name,
    topology_object,
)

TOPOLOGY_SCHEMAS = [
    SCHEMAS / "kai" / "kai.scheduler_topologies.yaml",
    SCHEMAS / "grove" / "topologies.kai.scheduler.kai-v0.15.2.yaml",
]
PODGROUP_SCHEMAS = [
    SCHEMAS / "kai" / "scheduling.run.ai_podgroups.yaml",
    SCHEMAS / "grove" / "podgroups.scheduling.run.ai.kai-v0.15.2.yaml",
]
ZONE, RACK, HOST = "example.com/zone", "example.com/rack", "kubernetes.io/hostname"

#   PodGroup train (zone)
#   └─ workers (rack, needs both children)
#      ├─ worker-0 (2 pods)
#      └─ worker-1 (2 pods)
TREE = PodGroup(
    name="train",
    namespace="ml",
    min_sub_group=1,
    queue="team-a",
    priority_class_name="high",
    constraint=TopologyConstraint("t", ZONE, ""),
    sub_groups=(
        SubGroup("workers", min_sub_group=2, constraint=TopologyConstraint("t", RACK, "")),
        SubGroup("worker-0", "workers", min_member=2, constraint=TopologyConstraint("t", "", HOST)),
        SubGroup("worker-1", "workers", min_member=2),
    ),
    labels={"kai.scheduler/queue": "team-a"},
    annotations={"kai.scheduler/skip-podgrouper": "true"},
    owner=OwnerReference("scheduler.grove.io/v1alpha1", "PodGang", "train", "0b5c5f4e-pg"),
)


@pytest.mark.parametrize("schema", TOPOLOGY_SCHEMAS, ids=lambda p: p.parent.name)
def test_topology_with_aliases_labels_and_owner_matches_the_schema(schema: Path) -> None:
    obj = topology_object(
        "t",
        [ZONE, RACK, HOST],
        aliases={"rack": RACK},
        labels={"osmo.pool": "p"},
        owner=OwnerReference("grove.io/v1alpha1", "ClusterTopology", "t", "7d1e-ct"),
    )
    validate(obj, schema)
    assert obj["spec"]["levels"] == [
        {"nodeLabel": ZONE},
        {"nodeLabel": RACK, "alias": "rack"},
        {"nodeLabel": HOST},
    ]
    assert obj["metadata"]["ownerReferences"] == [
        {
            "apiVersion": "grove.io/v1alpha1",
            "kind": "ClusterTopology",
            "name": "t",
            "uid": "7d1e-ct",  # the API server refuses a reference without it
            "controller": True,
            "blockOwnerDeletion": True,
        }
    ]


def test_topology_round_trips_with_aliases() -> None:
    topology = Topology.create("t", [ZONE, RACK, HOST], {"zone": ZONE, "rack": RACK})
    obj = topology_object(topology.name, topology.levels, aliases=topology.aliases)
    assert parse_topology(obj) == topology


def test_plain_topology_has_only_name_and_levels() -> None:
    assert topology_object("t", [ZONE]) == {
        "apiVersion": "kai.scheduler/v1alpha1",
        "kind": "Topology",
        "metadata": {"name": "t"},
        "spec": {"levels": [{"nodeLabel": ZONE}]},
    }


@pytest.mark.parametrize("schema", PODGROUP_SCHEMAS, ids=lambda p: p.parent.name)
@pytest.mark.parametrize("write_empty", [False, True], ids=["omit-empty", "write-empty"])
def test_podgroup_matches_the_schema(schema: Path, write_empty: bool) -> None:
    validate(TREE.to_object(write_empty=write_empty), schema)
    validate(PodGroup("flat", min_member=3).to_object(write_empty=write_empty), schema)


def test_podgroup_round_trips() -> None:
    assert parse_podgroup(TREE.to_object()) == TREE
    assert parse_podgroup(TREE.to_object(write_empty=True)) == TREE


def test_write_empty_keeps_the_empty_sections() -> None:
    obj = PodGroup("flat", min_member=3).to_object(write_empty=True)
    assert obj["spec"] == {"minMember": 3, "topologyConstraint": {}, "subGroups": []}
    assert obj["metadata"] == {"name": "flat", "namespace": "default", "labels": {}, "annotations": {}}
    assert PodGroup("flat", min_member=3).to_object()["spec"] == {"minMember": 3}


@pytest.mark.parametrize(
    ("raw", "clean"), [("Worker_A", "worker-a"), ("--x--", "x"), ("___", "group"), ("a" * 70, "a" * 63)]
)
def test_subgroup_names_are_dns_labels(raw: str, clean: str) -> None:
    assert subgroup_name(raw) == clean


def test_pod_metadata_patch() -> None:
    assert pod_metadata_patch("pg-x") == {"metadata": {"annotations": {"pod-group-name": "pg-x"}}}
    assert pod_metadata_patch("pg-x", "worker-1")["metadata"]["labels"] == {
        "kai.scheduler/subgroup-name": "worker-1"
    }
