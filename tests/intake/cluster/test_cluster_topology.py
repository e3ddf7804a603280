"""Topology files and objects: Kueue and KAI objects, the shorthand, and their errors."""

from __future__ import annotations

import pytest

from toposched.intake.cluster import load_cluster_report, load_topology, parse_topology_object
from toposched.model import HOSTNAME, ClusterSpecError, TopologySpecError

BLOCK = "cloud.provider.com/topology-block"
RACK = "cloud.provider.com/topology-rack"

# The seed's KAI example, which writes the Kueue API group.
SEED_EXAMPLE = """
apiVersion: kueue.x-k8s.io/v1alpha1
kind: Topology
metadata:
  name: "cluster-topology"
spec:
  levels:
  - nodeLabel: "cloud.provider.com/topology-block"
  - nodeLabel: "cloud.provider.com/topology-rack"
  - nodeLabel: "kubernetes.io/hostname"
"""


def test_seed_topology_object() -> None:
    topology = load_topology(SEED_EXAMPLE)
    assert topology.name == "cluster-topology"
    assert topology.levels == (BLOCK, RACK, HOSTNAME)
    assert topology.hostname_is_lowest


def test_kai_object_with_aliases() -> None:
    topology = parse_topology_object(
        {
            "apiVersion": "kai.scheduler/v1alpha1",
            "kind": "Topology",
            "metadata": {"name": "network"},
            "spec": {"levels": [{"nodeLabel": RACK, "alias": "rack"}, {"nodeLabel": HOSTNAME}]},
        }
    )
    assert topology.levels == (RACK, HOSTNAME)
    assert dict(topology.aliases) == {"rack": RACK}
    assert topology.index("rack") == 0


@pytest.mark.parametrize(
    "text",
    [
        f"name: short\nlevels: [{BLOCK}, {HOSTNAME}]\n",
        f"name: short\nlevels:\n- nodeLabel: {BLOCK}\n  alias: block\n- {HOSTNAME}\n",
    ],
    ids=["label-strings", "mappings-with-alias"],
)
def test_shorthand(text: str) -> None:
    topology = load_topology(text)
    assert (topology.name, topology.levels) == ("short", (BLOCK, HOSTNAME))


def test_topology_inside_a_list_among_other_objects() -> None:
    text = (
        "kind: List\nitems:\n- {kind: Node, metadata: {name: n}}\n"
        + "- "
        + SEED_EXAMPLE.strip().replace("\n", "\n  ")
    )
    assert load_topology(text).name == "cluster-topology"


ERRORS = [
    ("no-topology", "kind: Node\nmetadata: {name: n}\n", "topology", "expected one Topology object, found 0"),
    ("two-topologies", SEED_EXAMPLE + "---\n" + SEED_EXAMPLE, "topology", "found 2"),
    ("shorthand-without-name", "levels: [rack]\n", "name", "has no name"),
    ("shorthand-empty-levels", "name: x\nlevels: []\n", "levels", "has no levels"),
    (
        "shorthand-bad-level",
        "name: x\nlevels: [rack, 'not ok']\n",
        "levels[1].nodeLabel",
        "not a valid node label key",
    ),
    ("yaml-syntax", "name: x\nlevels: [rack\n", "topology:3:1", "invalid YAML"),
    (
        "object-bad-level",
        SEED_EXAMPLE.replace("topology-rack", "topology rack"),
        "spec.levels[1].nodeLabel",
        "valid",
    ),
]


@pytest.mark.parametrize(("text", "path", "message"), [e[1:] for e in ERRORS], ids=[e[0] for e in ERRORS])
def test_load_topology_errors(text: str, path: str, message: str) -> None:
    with pytest.raises(TopologySpecError) as info:
        load_topology(text)
    assert any(p.path == path and message in p.message for p in info.value.problems), info.value.problems


def test_parse_topology_object_prefixes_paths() -> None:
    with pytest.raises(TopologySpecError) as info:
        parse_topology_object(
            {
                "apiVersion": "kai.scheduler/v1alpha1",
                "kind": "Topology",
                "metadata": {"name": "t"},
                "spec": {},
            },
            path="topologies[t]",
        )
    assert [p.path for p in info.value.problems] == ["topologies[t].spec.levels"]


def test_parse_topology_object_rejects_other_kinds() -> None:
    with pytest.raises(TopologySpecError, match="expected kind Topology, got 'ClusterTopology'"):
        parse_topology_object(
            {
                "apiVersion": "kueue.x-k8s.io/v1beta2",
                "kind": "ClusterTopology",
                "metadata": {"name": "t"},
                "spec": {"levels": [{"nodeLabel": RACK}]},
            }
        )


GROVE_CLUSTER = """
apiVersion: grove.io/v1alpha1
kind: ClusterTopology
metadata: {name: gb200}
spec:
  levels:
  - {domain: zone, key: topology.kubernetes.io/zone}
  - {domain: rack, key: cloud.provider.com/rack}
  - {domain: host, key: kubernetes.io/hostname}
---
apiVersion: v1
kind: Node
metadata:
  name: n1
  labels: {topology.kubernetes.io/zone: z, cloud.provider.com/rack: r, kubernetes.io/hostname: n1}
status: {allocatable: {cpu: "4"}}
"""


def test_grove_cluster_topology_is_read_with_domain_aliases() -> None:
    cluster, warnings = load_cluster_report(GROVE_CLUSTER)
    (topology,) = cluster.topologies
    assert topology.name == "gb200"
    assert topology.levels == (
        "topology.kubernetes.io/zone",
        "cloud.provider.com/rack",
        "kubernetes.io/hostname",
    )
    assert topology.resolve("rack") == "cloud.provider.com/rack"
    assert warnings == []


def test_grove_cluster_topology_errors_name_its_fields() -> None:
    broken = GROVE_CLUSTER.replace("key: cloud.provider.com/rack", "key: Not A Label")
    with pytest.raises(ClusterSpecError) as info:
        load_cluster_report(broken)
    assert info.value.problems[0].path == "topologies[gb200].spec.levels[1].key"
