"""check_labels: nodes that are only partly in a topology, and shared hostname labels."""

from __future__ import annotations

from toposched.frontends.cluster import check_labels
from toposched.model import HOSTNAME, Cluster, Node, Topology

BLOCK = "cloud.provider.com/topology-block"
RACK = "cloud.provider.com/topology-rack"

#   b1 ─┬─ r1 ─┬─ n1
#       │      └─ n2          (n2 claims hostname "n1")
#       └─ ?  ── half         (rack label missing: outside the topology)
#   (no labels) ── plain      (not in the topology at all: fine)
TOPOLOGY = Topology.create("default", [BLOCK, RACK, HOSTNAME])
CLUSTER = Cluster.create(
    [
        Node.create("n1", {BLOCK: "b1", RACK: "r1", HOSTNAME: "n1"}),
        Node.create("n2", {BLOCK: "b1", RACK: "r1", HOSTNAME: "n1"}),
        Node.create("half", {BLOCK: "b1", HOSTNAME: "half"}),
        Node.create("plain"),
    ]
)


def test_partial_labels_and_shared_hostnames_are_reported() -> None:
    problems = check_labels(CLUSTER, TOPOLOGY)
    assert [p.path for p in problems] == [
        "nodes[half].metadata.labels",
        f"nodes[n2].metadata.labels[{HOSTNAME}]",
    ]
    partial, shared = problems
    assert f"lacks {RACK} of topology 'default'" in partial.message
    assert "outside that topology" in partial.message
    assert shared.message == "nodes 'n1' and 'n2' have the same hostname label 'n1'"
    assert partial.hint and shared.hint


def test_a_clean_cluster_has_no_warnings() -> None:
    clean = Cluster.create(
        [Node.create("n1", {BLOCK: "b1", RACK: "r1", HOSTNAME: "n1"}), Node.create("plain")]
    )
    assert check_labels(clean, TOPOLOGY) == []
