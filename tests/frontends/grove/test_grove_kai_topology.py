"""The KAI Topology Grove keeps per ClusterTopology: the ClusterTopology's keys, owned by it."""

from __future__ import annotations

from integration.conftest import SCHEMAS, validate
from toposched.frontends.grove import kai_topology

KEYS = ("topology.kubernetes.io/zone", "example.com/nvlink-domain", "kubernetes.io/hostname")


def test_owned_kai_topology_matches_the_schema() -> None:
    obj = kai_topology("gb200", KEYS, owner={"metadata": {"name": "gb200", "uid": "c0ffee"}})
    validate(obj, SCHEMAS / "grove" / "topologies.kai.scheduler.kai-v0.15.2.yaml")
    assert [lv["nodeLabel"] for lv in obj["spec"]["levels"]] == list(KEYS)
    assert obj["metadata"]["ownerReferences"] == [
        {
            "apiVersion": "grove.io/v1alpha1",
            "kind": "ClusterTopology",
            "name": "gb200",
            "uid": "c0ffee",
            "controller": True,
            "blockOwnerDeletion": True,
        }
    ]


def test_an_owner_not_created_yet_gets_no_reference() -> None:
    """The API server refuses an owner reference without the owner's uid."""
    obj = kai_topology("gb200", KEYS, owner={"metadata": {"name": "gb200"}})
    assert "ownerReferences" not in obj["metadata"]


def test_external_kai_topology_has_no_owner() -> None:
    assert "ownerReferences" not in kai_topology("external", KEYS)["metadata"]
