"""Topology definitions validate their levels."""

from __future__ import annotations

import pytest

from toposched.model import HOSTNAME, Cluster, Node, NotFoundError, Topology, TopologySpecError
from toposched.model.errors import ClusterSpecError

RACK = "cloud.provider.com/topology-rack"
BLOCK = "cloud.provider.com/topology-block"


def test_valid_topology_and_aliases() -> None:
    topology = Topology.create("default", [BLOCK, RACK, HOSTNAME], {"rack": RACK})
    assert topology.lowest == HOSTNAME
    assert topology.hostname_is_lowest
    assert topology.resolve("rack") == RACK
    assert topology.index(RACK) == 1
    assert topology.resolve("zone") is None


@pytest.mark.parametrize(
    ("levels", "fragment"),
    [
        pytest.param([], "1 to 8 levels", id="empty"),
        pytest.param([f"l{i}" for i in range(9)], "1 to 8 levels", id="too-many"),
        pytest.param([RACK, RACK], "listed twice", id="duplicate"),
        pytest.param(["Bad Label"], "not a valid node label key", id="bad-key"),
        pytest.param([HOSTNAME, RACK], "may only be the last", id="hostname-not-last"),
        pytest.param(["-rack"], "not a valid node label key", id="leading-dash"),
    ],
)
def test_invalid_levels(levels: list[str], fragment: str) -> None:
    with pytest.raises(TopologySpecError) as info:
        Topology.create("t", levels)
    assert any(fragment in p.message for p in info.value.problems)
    assert all(p.path.startswith("spec.levels") for p in info.value.problems)


def test_cluster_rejects_duplicate_node_names_and_resolves_topology() -> None:
    with pytest.raises(ClusterSpecError) as info:
        Cluster.create([Node.create("n1"), Node.create("n1")])
    assert "n1" in info.value.problems[0].message
    one = Topology.create("default", [RACK])
    cluster = Cluster.create([Node.create("n1")], topologies=[one])
    assert cluster.topology() is one
    with pytest.raises(NotFoundError) as missing:
        cluster.topology("other")
    assert "default" in str(missing.value)
