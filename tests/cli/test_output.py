"""The JSON/YAML document and the table view, from hand-built results (no engine involved).

Cluster used by the view tests (one GPU per pod)::

    zone z1
    └── rack r1
        ├── n1  4 GPUs, 1 used by a running pod
        └── n2  4 GPUs
    zone z2
    └── rack r2
        └── n3  4 GPUs, cordoned
"""

from __future__ import annotations

import json

import pytest
import yaml

from toposched.cli.output import to_json, to_yaml
from toposched.cli.render import explanation_rows, index_ranges, pods_label
from toposched.cli.view import build_view, display_resource
from toposched.emit.result import result_document
from toposched.model import (
    HOSTNAME,
    Cluster,
    DomainCount,
    Gang,
    Group,
    LayerFit,
    Node,
    Placement,
    PodPlacement,
    PodSpec,
    Policy,
    Resources,
    RunningPod,
    Topology,
    TopologyAssignment,
    Unschedulable,
)

ZONE = "topology.kubernetes.io/zone"
RACK = "cloud.provider.com/topology-rack"
GPU = "nvidia.com/gpu"
TOPOLOGY = Topology.create("default", [ZONE, RACK, HOSTNAME])


def node(name: str, zone: str, rack: str, *, cordoned: bool = False) -> Node:
    labels = {ZONE: zone, RACK: rack, HOSTNAME: name}
    return Node.create(name, labels, Resources({GPU: 4, "cpu": 8000}), unschedulable=cordoned)


CLUSTER = Cluster.create(
    [node("n1", "z1", "r1"), node("n2", "z1", "r1"), node("n3", "z2", "r2", cordoned=True)],
    [RunningPod("busy", "default", "n1", Resources({GPU: 1}))],
    [TOPOLOGY],
)
PODS = tuple(PodSpec(f"job-{i}", i, Resources({GPU: 1, "cpu": 500})) for i in range(5))
GANG = Gang("job", Group("job", children=(Group("main", required=RACK, pods=PODS),)), namespace="team")
PLACEMENT = Placement(
    gang="job",
    topology="default",
    policy=Policy.BESTFIT,
    pods=tuple(
        PodPlacement(f"job-{i}", "main", i, host, ("z1", "r1", host))
        for i, host in enumerate(["n1", "n1", "n1", "n2", "n2"])
    ),
    assignments={
        "main": TopologyAssignment((HOSTNAME,), (DomainCount(("n1",), 3), DomainCount(("n2",), 2))),
    },
)
FAILURE = Unschedulable(
    gang="job",
    topology="default",
    policy=Policy.MIXED,
    message='topology "default" allows to fit only 3 out of 5 pod(s)',
    group="main",
    level=RACK,
    best_domain=("z1", "r1"),
    fit=3,
    needed=5,
    total_nodes=3,
    excluded={'resource "nvidia.com/gpu"': 1},
    shortfall={GPU: 2},
    layers=(LayerFit(RACK, 1, 2),),
)


def test_placed_document_has_every_key_with_its_type() -> None:
    doc = json.loads(to_json(result_document(PLACEMENT)))
    assert doc == {
        "placed": True,
        "search": "faithful",
        "foundBy": "faithful",
        "note": None,
        "policy": "bestfit",
        "topology": "default",
        "pods": [
            {"name": f"job-{i}", "podSet": "main", "index": i, "node": host}
            for i, host in enumerate(["n1", "n1", "n1", "n2", "n2"])
        ],
        "assignments": {
            "main": {
                "levels": [HOSTNAME],
                "domains": [{"values": ["n1"], "count": 3}, {"values": ["n2"], "count": 2}],
            }
        },
        "reason": None,
        "explanation": None,
    }


def test_unschedulable_document_carries_reason_and_explanation() -> None:
    doc = result_document(FAILURE)
    assert (doc["placed"], doc["pods"], doc["assignments"]) == (False, [], {})
    assert doc["reason"] == FAILURE.message
    assert doc["explanation"] == {
        "group": "main",
        "level": RACK,
        "bestDomain": ["z1", "r1"],
        "fit": 3,
        "needed": 5,
        "unit": "pod",
        "totalNodes": 3,
        "excluded": {'resource "nvidia.com/gpu"': 1},
        "shortfall": {GPU: 2},
        "layers": [{"level": RACK, "fit": 1, "needed": 2}],
        "budgetExhausted": False,
    }


def test_yaml_output_is_the_same_document() -> None:
    doc = result_document(FAILURE)
    assert yaml.safe_load(to_yaml(doc)) == doc


@pytest.mark.parametrize(
    ("indices", "want"),
    [
        pytest.param([], "", id="none"),
        pytest.param([4], "4", id="one"),
        pytest.param([0, 1, 2, 3], "0-3", id="run"),
        pytest.param([7, 0, 1, 2, 5, 8], "0-2,5,7-8", id="runs and singles, unordered"),
    ],
)
def test_index_ranges(indices: list[int], want: str) -> None:
    assert index_ranges(indices) == want


def test_pods_label_groups_by_podset() -> None:
    pods = [
        PodPlacement(f"p{i}", group, i, "n1", ())
        for group, i in [("leader", 0), ("worker", 0), ("worker", 1)]
    ]
    assert pods_label(pods) == "leader[0] worker[0-1]"


@pytest.mark.parametrize(
    ("key", "want"),
    [
        pytest.param(ZONE, "zone", id="zone"),
        pytest.param(RACK, "rack", id="topology- prefix dropped"),
        pytest.param(HOSTNAME, "node", id="hostname"),
    ],
)
def test_short_level_name(key: str, want: str) -> None:
    assert TOPOLOGY.short_name(key) == want


def test_short_level_name_prefers_alias() -> None:
    topology = Topology.create("t", [ZONE, RACK], aliases={"nvl72": RACK})
    assert topology.short_name(RACK) == "nvl72"


def test_display_resource_prefers_gpus() -> None:
    assert display_resource(GANG) == GPU
    cpu_only = Gang("c", Group("c", pods=(PodSpec("c-0", 0, Resources({"cpu": 1000})),)))
    assert display_resource(cpu_only) == "cpu"


def test_view_counts_free_gpus_before_and_after() -> None:
    view = build_view(CLUSTER, TOPOLOGY, GANG, PLACEMENT)
    assert view.resource == GPU
    [zone] = view.roots
    [rack] = zone.children
    # z1 has 4 + 4 GPUs, 1 used by the running pod: 7 free; the gang takes 5.
    assert (zone.value, zone.before, zone.after, zone.pods) == ("z1", 7, 2, 5)
    assert (rack.value, rack.before, rack.after) == ("r1", 7, 2)
    assert [(n.name, n.before, n.after, len(n.pods)) for n in rack.nodes] == [
        ("n1", 3, 0, 3),
        ("n2", 4, 2, 2),
    ]
    assert view.domains_per_level == {ZONE: 1, RACK: 1}
    assert (view.nodes_used, view.pods) == (2, 5)


def test_explanation_rows_name_every_fact() -> None:
    text = " ".join(f"{k} {v}" for k, v in explanation_rows(FAILURE, TOPOLOGY))
    for fact in (
        "main",
        "rack",
        "z1 / r1",
        "3 of 5 pods",
        "1 of 2 fit",
        'resource "nvidia.com/gpu"',
        "2 nvidia.com/gpu",
    ):
        assert fact in text
