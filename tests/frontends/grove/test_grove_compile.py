"""PodCliqueSet → IR and KAI PodGroup details beyond the conformance cases."""

from __future__ import annotations

from typing import Any

import pytest

from toposched.frontends.grove import (
    build_kai_podgroup,
    build_podgangs,
    parse_cluster_topology,
    parse_podcliqueset,
    queue_of,
    to_gang,
)
from toposched.model import Semantics, WorkloadSpecError

# zone ─ rack ─ host  (keys z, r, h)
TOPOLOGY = parse_cluster_topology(
    {
        "metadata": {"name": "t"},
        "spec": {
            "levels": [
                {"domain": "zone", "key": "z"},
                {"domain": "rack", "key": "r"},
                {"domain": "host", "key": "h"},
            ]
        },
    }
)


def pcs(**template: Any) -> dict[str, Any]:
    cliques = [
        {
            "name": "lead",
            "spec": {"replicas": 1, "podSpec": {"containers": [{"resources": {"requests": {"cpu": "2"}}}]}},
        },
        {
            "name": "work",
            "topologyConstraint": {"packDomain": "host"},
            "spec": {"replicas": 2, "minAvailable": 1},
        },
    ]
    groups = [
        {
            "name": "sg",
            "cliqueNames": ["work"],
            "replicas": 3,
            "minAvailable": 2,
            "topologyConstraint": {"pack": {"preferred": "rack"}},
        }
    ]
    body = {
        "clusterTopologyName": "t",
        "topologyConstraint": {"packDomain": "zone"},
        "cliques": cliques,
        "podCliqueScalingGroups": groups,
    }
    return {
        "metadata": {"name": "p", "labels": {"kai.scheduler/queue": "q"}},
        "spec": {"replicas": 2, "template": {**body, **template}},
    }


def test_gang_mirrors_replicas_and_scaling_groups() -> None:
    gang = to_gang(parse_podcliqueset(pcs()), TOPOLOGY)
    assert gang.topology == "t" and [g.name for g in gang.root.children] == ["p-0", "p-1"]
    assert gang.semantics is Semantics.HIERARCHY  # Grove schedules through KAI
    replica = gang.root.children[0]
    assert replica.required == "z"
    assert [c.name for c in replica.children] == ["p-0-lead", "p-0-sg-0", "p-0-sg-1", "p-0-sg-2"]
    group = replica.children[1]
    assert (group.required, group.preferred, group.min_member) == (None, "r", 1)
    assert group.children[0].required == "h" and len(group.children[0].pods) == 2
    # base minimum: the lead (1) + two required scaling-group replicas (1 each)
    assert replica.min_member == 3 and gang.min_member == 6
    assert replica.children[0].pods[0].requests["cpu"] == 2000
    assert [p.index for p in gang.root.all_pods()] == list(range(gang.size))


def test_gang_without_tas_is_unconstrained() -> None:
    gang = to_gang(parse_podcliqueset(pcs()), TOPOLOGY, tas_enabled=False)
    assert gang.topology is None
    assert all(g.required is None and g.preferred is None for g in gang.root.children)


def test_scaled_podgangs_use_the_group_constraint() -> None:
    built = build_podgangs(parse_podcliqueset(pcs()), TOPOLOGY)
    names = [b.name for b in built]
    assert names == ["p-0", "p-0-sg-0", "p-1", "p-1-sg-0"]
    assert built[1].object["spec"]["topologyConstraint"] == {"packConstraint": {"preferred": "r"}}
    assert len(built[0].pods()) == 1 + 2 * 2


@pytest.mark.parametrize(
    ("labels", "clique_queues", "expected"),
    [
        pytest.param({"kai.scheduler/queue": "a"}, ["b", "c"], "a", id="label-wins"),
        pytest.param({}, ["b", "b"], "b", id="shared-clique-value"),
        pytest.param({}, ["b", "c"], None, id="conflict"),
        pytest.param({}, [], None, id="missing"),
    ],
)
def test_queue(labels: dict[str, str], clique_queues: list[str], expected: str | None) -> None:
    cliques = [{"name": f"c{i}", "labels": {"kai.scheduler/queue": q}} for i, q in enumerate(clique_queues)]
    parsed = parse_podcliqueset(
        {"metadata": {"name": "p", "labels": labels}, "spec": {"template": {"cliques": cliques}}}
    )
    if expected is None:
        with pytest.raises(WorkloadSpecError):
            queue_of(parsed)
    else:
        assert queue_of(parsed) == expected


def test_kai_podgroup_of_scaled_podgang() -> None:
    parsed = parse_podcliqueset(pcs())
    scaled = build_podgangs(parsed, TOPOLOGY)[1]
    group = build_kai_podgroup(scaled.object, parsed).object
    assert group["spec"]["topologyConstraint"] == {"topology": "t", "preferredTopologyLevel": "r"}
    assert group["spec"]["subGroups"] == [
        {
            "name": "p-0-sg-2-work",
            "minMember": 1,
            "topologyConstraint": {"topology": "t", "requiredTopologyLevel": "h"},
        }
    ]
    assert group["spec"]["minMember"] == 1 and group["spec"]["queue"] == "q"
