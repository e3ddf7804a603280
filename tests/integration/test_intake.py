"""The service's intake registry reads every supported spec: Kueue, KAI, OSMO (pool by name) and
Grove (ClusterTopologies from the known topologies)."""

from __future__ import annotations

import pytest

from toposched.frontends.cluster import load_cluster, parse_topology_object
from toposched.frontends.osmo import parse_pool, topology_object
from toposched.model import Topology, WorkloadSpecError
from toposched.scheduler.intake import IntakeContext, PoolEntry, default_intake

from .conftest import EXAMPLES

RACK = "topology.kubernetes.io/rack"


def text(path: str) -> str:
    return (EXAMPLES / path).read_text(encoding="utf-8")


def test_kai_workload_is_read_by_the_kai_front_end_before_kueue() -> None:
    intake = default_intake()
    (topology,) = load_cluster(text("kai/tfjob-cluster.yaml")).topologies
    assert intake.choose(text("kai/tfjob-segments.yaml")).name == "kai"
    gang = intake.load(text("kai/tfjob-segments.yaml"), topology=topology)
    segments = [leaf for leaf in gang.leaves() if leaf.name.startswith("worker-")]
    assert [(s.name, len(s.pods), s.required) for s in segments] == [
        (f"worker-{i}", 4, RACK) for i in range(4)
    ]


def test_kueue_workload_still_goes_to_kueue() -> None:
    assert default_intake().choose(text("kueue/job-rack.yaml")).name == "kueue"


def test_osmo_workflow_uses_the_named_pool_and_its_stored_topology() -> None:
    import yaml

    pool = parse_pool(yaml.safe_load(text("osmo/3-multiple-nvl72-same-zone.pool.yaml")))
    obj = topology_object(pool)
    assert obj is not None
    stored = parse_topology_object(obj)
    context = IntakeContext(topologies=(stored,), pool_config={"my-pool": PoolEntry(pool, stored.name)})
    gang = default_intake().load(text("osmo/3-multiple-nvl72-same-zone.workflow.yaml"), context=context)
    assert gang.topology == stored.name and gang.size == 8
    assert gang.root.required == "topology.kubernetes.io/zone"


def test_osmo_workflow_with_an_unknown_pool_is_rejected() -> None:
    with pytest.raises(WorkloadSpecError, match="known pools: none"):
        default_intake().load(text("osmo/1-single-nvl72-rack.workflow.yaml"))


def test_grove_podcliqueset_resolves_its_topology_from_the_known_ones() -> None:
    h100 = Topology.create(
        "h100-topology",
        ["topology.kubernetes.io/zone", "example.com/h100-rack", "kubernetes.io/hostname"],
        {
            "zone": "topology.kubernetes.io/zone",
            "rack": "example.com/h100-rack",
            "host": "kubernetes.io/hostname",
        },
    )
    gang = default_intake().load(text("grove/llama-70b-h100.yaml"), topology=h100)
    assert gang.topology == "h100-topology"
    (replica,) = gang.root.children
    assert replica.required == "example.com/h100-rack"


def test_grove_podcliqueset_naming_an_unknown_topology_is_rejected() -> None:
    with pytest.raises(WorkloadSpecError, match="h100-topology"):
        default_intake().load(text("grove/llama-70b-h100.yaml"))
