"""Grove wire objects: the ClusterTopology written from a model topology validates against both
ClusterTopology schemas (hostname is Grove's well-known ``host``), is admitted, and reads back as
the same topology; the PodGang shape validates against its schema."""

from __future__ import annotations

from pathlib import Path

import pytest

from integration.conftest import SCHEMAS, validate
from toposched.frontends.grove import admit
from toposched.model import Topology, TopologySpecError
from toposched.wire.grove import (
    Level,
    SchedulerReference,
    cluster_topology_object,
    domain_of,
    domains_of,
    is_cluster_topology,
    parse_cluster_topology,
    podgang_object,
)

GROVE = SCHEMAS / "grove"
CLUSTER_TOPOLOGY_SCHEMAS = [
    GROVE / "clustertopologies.grove.io.multi-topology.yaml",
    GROVE / "clustertopologies.grove.io.single-topology.yaml",
]
ZONE, NVL, HOST = "topology.kubernetes.io/zone", "example.com/nvlink-domain", "kubernetes.io/hostname"

# zone ─ rack (aliased) ─ hostname (no alias)
GB = Topology.create("gb200", [ZONE, NVL, HOST], {"rack": NVL})


@pytest.mark.parametrize(
    ("key", "domain"),
    [
        pytest.param(HOST, "host", id="kubernetes-hostname"),
        pytest.param("example.com/hostname", "host", id="any-hostname-label"),
        pytest.param(ZONE, "zone", id="kubernetes-zone"),
        pytest.param("example.com/NVL_Block", "nvl-block", id="lower-case-dashes"),
        pytest.param("rack", "rack", id="no-prefix"),
    ],
)
def test_domain_of_a_level_without_alias(key: str, domain: str) -> None:
    assert domain_of(key) == domain


def test_aliases_name_their_levels() -> None:
    assert domains_of(GB) == [Level("zone", ZONE), Level("rack", NVL), Level("host", HOST)]


@pytest.mark.parametrize("schema", CLUSTER_TOPOLOGY_SCHEMAS, ids=lambda p: p.name.split(".")[-2])
def test_cluster_topology_matches_the_schema(schema: Path) -> None:
    obj = cluster_topology_object(
        GB, labels={"team": "infra"}, references=[SchedulerReference("kai-scheduler", "external")]
    )
    if "single" in schema.name:  # the single-topology era had no backend bindings
        obj["spec"].pop("schedulerTopologyReferences")
    validate(obj, schema)
    assert [lv["domain"] for lv in obj["spec"]["levels"]] == ["zone", "rack", "host"]


def test_cluster_topology_is_admitted_and_reads_back() -> None:
    obj = cluster_topology_object(GB, references=[SchedulerReference("kai-scheduler", "external")])
    config = {"scheduler": {"profiles": [{"name": "kai-scheduler"}]}}
    assert admit("ClusterTopology", "create", obj, operator_config=config).accepted
    assert is_cluster_topology(obj)
    read = parse_cluster_topology(obj)
    assert read.references == (SchedulerReference("kai-scheduler", "external"),)
    assert read.to_topology().levels == GB.levels
    assert read.key_of("host") == HOST
    assert cluster_topology_object(read.to_topology()) == cluster_topology_object(GB)


def test_levels_without_distinct_domains_are_refused() -> None:
    clash = Topology.create("t", ["a.io/rack", "b.io/rack"])
    with pytest.raises(TopologySpecError) as caught:
        cluster_topology_object(clash)
    (problem,) = caught.value.problems
    assert problem.path == "spec.levels[1].domain" and "'b.io/rack'" in problem.hint


def test_podgang_matches_the_schema() -> None:
    spec = {
        "topologyConstraint": {"packConstraint": {"required": NVL}},
        "topologyConstraintGroupConfigs": [],
        "podgroups": [
            {"name": "infer-0-decode", "minReplicas": 2, "podReferences": [{"namespace": "ml", "name": "p0"}]}
        ],
        "priorityClassName": "high",
    }
    owner = {"apiVersion": "grove.io/v1alpha1", "kind": "PodCliqueSet", "name": "infer", "uid": "u-1"}
    obj = podgang_object(
        "infer-0",
        "ml",
        owner=owner,
        labels={"app.kubernetes.io/part-of": "infer"},
        annotations={"grove.io/topology-name": "gb200"},
        spec=spec,
    )
    validate(obj, GROVE / "podgangs.scheduler.grove.io.head.yaml")
    assert obj["metadata"]["ownerReferences"] == [owner]
    assert "ownerReference" not in obj["metadata"]  # not a Kubernetes field


def test_podgang_without_an_owner_has_no_owner_references() -> None:
    obj = podgang_object("infer-0", "ml", owner=None, labels={}, annotations={}, spec={"podgroups": []})
    assert "ownerReferences" not in obj["metadata"]
