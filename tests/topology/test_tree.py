"""The static domain tree: membership, path ids, dense ranks, contiguous ranges."""

from __future__ import annotations

import random

import numpy as np
import pytest

from builders import BLOCK, HOST, RACK, node, topology
from toposched.model import HOSTNAME, Node, Topology
from toposched.model.node import NODE_LEVEL
from toposched.topology import TopologyTree

# Topology block / rack / host. The rack name r1 exists under both blocks.
#
#   b1                b2
#   ├── r1            └── r1
#   │   ├── h1            └── h5
#   │   └── h2
#   └── r2
#       └── h3
#
#   outside: h4 (no rack label), h6 (NotReady), h7 (cordoned), h8 (no labels at all)
THREE_LEVELS = topology("block", "rack", "host")


def nodes() -> list[Node]:
    return [
        node("h5").at(block="b2", rack="r1").build(),
        node("h3").at(block="b1", rack="r2").build(),
        node("h2").at(block="b1", rack="r1").build(),
        node("h4").labels({BLOCK: "b1", HOST: "h4"}).build(),
        node("h1").at(block="b1", rack="r1").build(),
        node("h6").at(block="b1", rack="r1").not_ready().build(),
        node("h7").at(block="b2", rack="r1").cordoned().build(),
        node("h8").build(),
    ]


@pytest.fixture
def tree() -> TopologyTree:
    return TopologyTree.build(THREE_LEVELS, nodes())


def test_members_are_schedulable_nodes_with_every_level_label(tree: TopologyTree) -> None:
    assert tree.node_names == ("h1", "h2", "h3", "h5")
    assert tree.outside == ("h4", "h6", "h7", "h8")


def test_domains_are_paths_in_lexicographic_order(tree: TopologyTree) -> None:
    assert tree.paths[0] == (("b1",), ("b2",))
    assert tree.paths[1] == (("b1", "r1"), ("b1", "r2"), ("b2", "r1"))
    assert tree.paths[2] == (("b1", "r1", "h1"), ("b1", "r1", "h2"), ("b1", "r2", "h3"), ("b2", "r1", "h5"))
    assert tree.index_of(1, ("b2", "r1")) == 2  # same rack name, other block: its own domain


def test_parents_and_contiguous_children(tree: TopologyTree) -> None:
    assert tree.parent[1].tolist() == [0, 0, 1]
    assert tree.parent[2].tolist() == [0, 0, 1, 2]
    assert [tree.children(0, b) for b in range(2)] == [(0, 2), (2, 3)]
    assert [tree.children(1, r) for r in range(3)] == [(0, 2), (2, 3), (3, 4)]
    assert tree.descendants(0, 0, 2) == (0, 3)
    assert tree.ancestor(2, 3, 0) == 1


def test_node_domain_columns(tree: TopologyTree) -> None:
    assert tree.node_domain[0].tolist() == [0, 0, 0, 1]
    assert tree.node_domain[1].tolist() == [0, 0, 1, 2]
    assert tree.one_node_per_leaf


def test_leaf_lookup_by_hostname_for_hostname_topologies(tree: TopologyTree) -> None:
    assert tree.leaf_for_values(("h5",)) == 3
    assert tree.leaf_for_values(("h6",)) is None  # NotReady: not a domain


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_node_input_order_does_not_matter(tree: TopologyTree, seed: int) -> None:
    shuffled = nodes()
    random.Random(seed).shuffle(shuffled)
    other = TopologyTree.build(THREE_LEVELS, shuffled)
    assert other.paths == tree.paths
    assert other.node_names == tree.node_names
    assert all(np.array_equal(a, b) for a, b in zip(other.parent, tree.parent, strict=True))


# Topology block / rack (the lowest level is not the hostname): racks hold several nodes.
#
#   b1
#   ├── r1: n1
#   └── r2: n2, n3, n4
def test_leaves_of_several_nodes_when_the_lowest_level_is_not_the_hostname() -> None:
    racks = TopologyTree.build(
        topology("block", "rack"),
        [
            node(n).labels({BLOCK: "b1", RACK: r}).build()
            for n, r in [("n3", "r2"), ("n1", "r1"), ("n4", "r2"), ("n2", "r2")]
        ],
    )
    assert not racks.one_node_per_leaf
    assert list(racks.leaf_nodes(1)) == [1, 2, 3]
    assert [racks.node_names[i] for i in racks.leaf_nodes(1)] == ["n2", "n3", "n4"]
    assert racks.leaf_for_values(("b1", "r2")) == 1


def test_per_node_and_per_leaf_output_columns(tree: TopologyTree) -> None:
    assert tree.node_name_array.tolist() == list(tree.node_names)
    assert tree.node_leaf_path.tolist() == list(tree.paths[2])
    # Hostname topologies write the hostname alone; leaf_for_values reads it back.
    assert tree.leaf_values == (("h1",), ("h2",), ("h3",), ("h5",))
    assert [tree.leaf_for_values(v) for v in tree.leaf_values] == [0, 1, 2, 3]


def test_output_columns_when_leaves_hold_several_nodes() -> None:
    racks = TopologyTree.build(
        topology("block", "rack"),
        [
            node(n).labels({BLOCK: b, RACK: r}).build()
            for n, b, r in [("n3", "b1", "r2"), ("n1", "b1", "r1"), ("n2", "b1", "r2"), ("n5", "b2", "r1")]
        ],
    )
    assert racks.node_name_array[np.array([2, 0])].tolist() == ["n3", "n1"]
    assert racks.node_leaf_path.tolist() == [("b1", "r1"), ("b1", "r2"), ("b1", "r2"), ("b2", "r1")]
    assert racks.leaf_values == racks.paths[1]  # full paths: the rack name alone is ambiguous
    assert [racks.leaf_for_values(v) for v in racks.leaf_values] == [0, 1, 2]


def test_empty_tree() -> None:
    empty = TopologyTree.build(THREE_LEVELS, [node("lonely").build()])
    assert empty.node_count == 0
    assert [empty.count(level) for level in range(3)] == [0, 0, 0]
    assert empty.node_name_array.tolist() == empty.node_leaf_path.tolist() == []
    assert empty.leaf_values == ()


def test_label_codes_and_taint_groups() -> None:
    tree = TopologyTree.build(
        topology("host"),
        [
            node("a").at().labels(zone="z1").taint("gpu", "yes").build(),
            node("b")
            .at()
            .labels(zone="z2")
            .taint("gpu", "yes")
            .taint("soft", effect="PreferNoSchedule")
            .build(),
            node("c").at().taint("soft", effect="PreferNoSchedule").build(),
        ],
    )
    codes, table = tree.columns.label_codes("zone")
    assert codes.tolist() == [table["z1"], table["z2"], -1]
    groups = tree.columns.taint_groups()
    assert len(groups) == 1  # PreferNoSchedule does not block, so a and b share one group
    assert groups[0][1].tolist() == [0, 1]


def test_the_node_name_level_holds_every_schedulable_node_whatever_its_labels() -> None:
    """kube-scheduler's placement of a PodGroup without a constraint: every node, labels or not,
    each its own domain, named by its hostname label (else its name), read as a hostname level."""
    named = [*nodes(), Node.create("n9", {HOSTNAME: "host-9"})]
    every = TopologyTree.build(Topology.create("all", [NODE_LEVEL]), named)
    assert every.node_names == ("h1", "h2", "h3", "h4", "h5", "h8", "n9")  # h6 NotReady, h7 cordoned
    assert every.leaf_values == tuple((n,) for n in ("h1", "h2", "h3", "h4", "h5", "h8", "host-9"))
    assert every.hostname_is_lowest


def test_an_every_node_topology_holds_not_ready_and_cordoned_nodes_tainted_as_kcm_taints_them() -> None:
    """kube-scheduler's view of a constraint key: every labelled node belongs (it counts in a
    placement), and a NotReady or cordoned one blocks pods by the taint kube-controller-manager
    gives it, so only a pod tolerating that taint may use it."""
    nodes = [
        node("ok").at(rack="r1").build(),
        node("down").at(rack="r1").not_ready().build(),
        node("off").at(rack="r1").cordoned().build(),
    ]
    assert TopologyTree.build(topology("rack"), nodes).node_names == ("ok",)
    every = TopologyTree.build(Topology.create("kube-rack", [RACK], every_node=True), nodes)
    assert every.node_names == ("down", "off", "ok")
    blocking = {tuple(str(t) for t in taints): rows.tolist() for taints, rows in every.columns.taint_groups()}
    assert blocking == {
        ("node.kubernetes.io/not-ready:NoSchedule",): [0],
        ("node.kubernetes.io/unschedulable:NoSchedule",): [1],
    }
