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
    ("levels", "fragment", "path"),
    [
        pytest.param([], "1 to 16 levels", "spec.levels", id="empty"),
        pytest.param([f"l{i}" for i in range(17)], "1 to 16 levels, got 17", "spec.levels", id="too-many"),
        pytest.param([RACK, RACK], "nodeLabel must be unique", "spec.levels", id="duplicate"),
        pytest.param(["Bad Label"], "not a valid node label key", "spec.levels[0]", id="bad-key"),
        pytest.param(
            [HOSTNAME, RACK], "can only be used at the lowest level", "spec.levels", id="hostname-not-last"
        ),
        pytest.param(["-rack"], "not a valid node label key", "spec.levels[0]", id="leading-dash"),
    ],
)
def test_invalid_levels(levels: list[str], fragment: str, path: str) -> None:
    """The list-wide rules are reported at the list, as the Topology CRDs' CEL rules are."""
    with pytest.raises(TopologySpecError) as info:
        Topology.create("t", levels)
    assert [p.path for p in info.value.problems if fragment in p.message] == [path]


def test_sixteen_levels_are_a_topology() -> None:
    """The Kueue (v0.19) and KAI Topology CRDs take up to 16 levels; the model took 8."""
    assert len(Topology.create("t", [f"example.com/l{i}" for i in range(16)]).levels) == 16


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
