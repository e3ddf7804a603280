"""The KAI Topology Grove keeps per ClusterTopology: the ClusterTopology's keys, owned by it."""

from __future__ import annotations

from integration.conftest import SCHEMAS, validate
from toposched.frontends.grove import kai_topology

KEYS = ("topology.kubernetes.io/zone", "example.com/nvlink-domain", "kubernetes.io/hostname")


def test_owned_kai_topology_matches_the_schema() -> None:
    obj = kai_topology("gb200", KEYS, owner="gb200")
    validate(obj, SCHEMAS / "grove" / "topologies.kai.scheduler.kai-v0.15.2.yaml")
    assert [lv["nodeLabel"] for lv in obj["spec"]["levels"]] == list(KEYS)
    assert obj["metadata"]["ownerReferences"] == [
        {"apiVersion": "grove.io/v1alpha1", "kind": "ClusterTopology", "name": "gb200", "controller": True}
    ]


def test_external_kai_topology_has_no_owner() -> None:
    assert "ownerReferences" not in kai_topology("external", KEYS)["metadata"]
