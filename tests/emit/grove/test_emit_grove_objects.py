"""ClusterTopology and KAI Topology objects validate against the saved CRD schemas."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from toposched.emit.grove import cluster_topology, domains_of, kai_topology
from toposched.frontends.grove import admit, parse_cluster_topology
from toposched.model import Topology, TopologySpecError

SCHEMAS = Path(__file__).resolve().parents[4] / "shared" / "schemas" / "grove"


def schema(file: str) -> dict[str, Any]:
    if not (SCHEMAS / file).exists():
        pytest.skip(f"no {SCHEMAS / file}")
    crd = yaml.safe_load((SCHEMAS / file).read_text())
    return dict(crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"])


# zone ─ rack ─ host
GB = Topology.create(
    "gb200",
    ["topology.kubernetes.io/zone", "example.com/nvlink-domain", "kubernetes.io/hostname"],
    {"zone": "topology.kubernetes.io/zone", "rack": "example.com/nvlink-domain"},
)


def test_cluster_topology_matches_schema_and_round_trips() -> None:
    obj = cluster_topology(GB, labels={"team": "infra"}, references=[("kai-scheduler", "external")])
    jsonschema.validate(obj, schema("clustertopologies.grove.io.multi-topology.yaml"))
    assert [lv["domain"] for lv in obj["spec"]["levels"]] == ["zone", "rack", "hostname"]
    assert parse_cluster_topology(obj).to_topology().levels == GB.levels
    assert admit(
        "ClusterTopology",
        "create",
        obj,
        operator_config={"scheduler": {"profiles": [{"name": "kai-scheduler"}]}},
    ).accepted


def test_kai_topology_matches_schema() -> None:
    obj = kai_topology("gb200", GB.levels, owner="gb200")
    jsonschema.validate(obj, schema("topologies.kai.scheduler.kai-v0.15.2.yaml"))
    assert obj["metadata"]["ownerReferences"][0]["controller"] is True


def test_levels_without_distinct_domains_are_refused() -> None:
    clash = Topology.create("t", ["a.io/rack", "b.io/rack"])
    assert domains_of(clash) == [("rack", "a.io/rack"), ("rack", "b.io/rack")]
    with pytest.raises(TopologySpecError):
        cluster_topology(clash)
