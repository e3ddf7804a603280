"""The examples in examples/grove: every object is admitted, and each PodCliqueSet compiles to a
gang naming its own topology and that topology's label keys."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from toposched.frontends.grove import admit, parse_podcliqueset, to_gang, topologies_of

EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "grove"
CONFIG = {
    "topologyAwareScheduling": {"enabled": True},
    "scheduler": {"profiles": [{"name": "kai-scheduler"}]},
}


def load(name: str) -> list[dict[str, Any]]:
    return [d for d in yaml.safe_load_all((EXAMPLES / name).read_text()) if d]


def test_cluster_has_both_generations() -> None:
    nodes = load("cluster.yaml")
    h100 = [n for n in nodes if "example.com/h100-rack" in n["metadata"]["labels"]]
    gb200 = [n for n in nodes if "example.com/nvl-block" in n["metadata"]["labels"]]
    assert (len(h100), len(gb200)) == (8, 72)


@pytest.mark.parametrize(
    ("file", "topology", "replica_level", "child", "child_level"),
    [
        pytest.param(
            "llama-70b-h100.yaml", "h100-topology", "example.com/h100-rack",
            "llama-70b-h100-0-decode", "kubernetes.io/hostname", id="h100",
        ),
        pytest.param(
            "llama-405b-gb200.yaml", "gb200-topology", "example.com/nvl-block",
            "llama-405b-gb200-0-model-parallel-1", "example.com/nvlink-domain", id="gb200",
        ),
    ],
)  # fmt: skip
def test_example_compiles_to_its_topology(
    file: str, topology: str, replica_level: str, child: str, child_level: str
) -> None:
    topologies = load("topologies.yaml")
    for obj in topologies:
        assert admit("ClusterTopology", "create", obj, operator_config=CONFIG).accepted
    (obj,) = load(file)
    answer = admit("PodCliqueSet", "create", obj, existing=topologies, operator_config=CONFIG)
    assert answer.accepted, answer.message
    pcs = parse_podcliqueset(obj)
    gang = to_gang(pcs, topologies_of(topologies)[topology])
    assert gang.topology == topology
    (replica,) = gang.root.children
    assert replica.required == replica_level
    groups = {g.name: g for g in replica.children}
    assert groups[child].required == child_level
