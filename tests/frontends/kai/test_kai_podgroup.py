"""PodGroup parsing, writing and admission (beyond the conformance cases)."""

from __future__ import annotations

from typing import Any

import pytest

from toposched.frontends.kai import (
    PodGroup,
    SubGroup,
    TopologyConstraint,
    parse_podgroup,
    topology_from_object,
    validate_podgroup,
    validate_topology,
)
from toposched.model import TopologySpecError, WorkloadSpecError


def pg(spec: dict[str, Any]) -> dict[str, Any]:
    return {
        "apiVersion": "scheduling.run.ai/v2alpha2",
        "kind": "PodGroup",
        "metadata": {"name": "pg"},
        "spec": spec,
    }


def test_parse_round_trip() -> None:
    obj = pg(
        {
            "minSubGroup": 1,
            "queue": "team-a",
            "priorityClassName": "train",
            "topologyConstraint": {"topology": "t", "requiredTopologyLevel": "zone"},
            "subGroups": [
                {"name": "a", "minSubGroup": 1},
                {
                    "name": "b",
                    "parent": "a",
                    "minMember": 2,
                    "topologyConstraint": {"topology": "t", "preferredTopologyLevel": "rack"},
                },
            ],
        }
    )
    group = parse_podgroup(obj)
    assert group.constraint == TopologyConstraint("t", "zone", "")
    assert group.subgroup("b") == SubGroup("b", "a", 2, None, TopologyConstraint("t", "", "rack"))
    assert [sg.name for sg in group.leaves()] == ["b"]
    back = group.to_object()
    assert back["spec"] == {**obj["spec"]}
    assert back["metadata"] == {"name": "pg", "namespace": "default"}


@pytest.mark.parametrize(
    ("spec", "path"),
    [
        pytest.param({"minMember": "3"}, "spec.minMember", id="string-min-member"),
        pytest.param({"minSubGroup": -2}, "spec.minSubGroup", id="negative-min-subgroup"),
        pytest.param(
            {"subGroups": [{"name": "A_b", "minMember": 1}]}, "spec.subGroups[0].name", id="bad-name"
        ),
        pytest.param(
            {"subGroups": [{"name": "a", "parent": "X", "minMember": 1}]},
            "spec.subGroups[0].parent",
            id="bad-parent",
        ),
        pytest.param({"subGroups": "a"}, "spec.subGroups", id="not-a-list"),
        pytest.param(
            {"topologyConstraint": {"topology": 3}}, "spec.topologyConstraint.topology", id="constraint-type"
        ),
    ],
)
def test_parse_rejects_with_path(spec: dict[str, Any], path: str) -> None:
    with pytest.raises(WorkloadSpecError) as caught:
        parse_podgroup(pg(spec))
    assert [p.path for p in caught.value.problems] == [path]


def test_parse_collects_every_problem() -> None:
    with pytest.raises(WorkloadSpecError) as caught:
        parse_podgroup(pg({"minMember": -1, "subGroups": [{"name": "Bad", "minMember": -1}]}))
    assert len(caught.value.problems) == 3


def test_missing_parent_reports_each_orphan() -> None:
    result = validate_podgroup(
        pg(
            {
                "subGroups": [
                    {"name": "a", "parent": "x", "minMember": 1},
                    {"name": "b", "parent": "y", "minMember": 1},
                ]
            }
        )
    )
    assert not result.accepted
    assert [p.path for p in result.problems] == ["spec.subGroups[0].parent", "spec.subGroups[1].parent"]


def test_cycle_names_only_members_of_the_cycle() -> None:
    result = validate_podgroup(
        pg(
            {
                "subGroups": [
                    {"name": "r", "minSubGroup": 1},
                    {"name": "a", "parent": "b", "minMember": 1},
                    {"name": "b", "parent": "a", "minMember": 1},
                ]
            }
        )
    )
    assert not result.accepted
    assert result.problems[0].message == "cycle detected in subgroups: a, b"


def test_update_still_rejects_hard_errors() -> None:
    result = validate_podgroup(pg({"subGroups": [{"name": "a"}]}), operation="UPDATE")
    assert not result.accepted


def test_podgroup_defaults() -> None:
    group = PodGroup("x")
    assert group.to_object()["spec"] == {}


def kai_topology(*levels: dict[str, str]) -> dict[str, Any]:
    return {
        "apiVersion": "kai.scheduler/v1alpha1",
        "kind": "Topology",
        "metadata": {"name": "t"},
        "spec": {"levels": list(levels)},
    }


@pytest.mark.parametrize(
    ("levels", "fragment"),
    [
        pytest.param([{"nodeLabel": "bad label"}], "not a valid node label key", id="label-syntax"),
        pytest.param([{"nodeLabel": f"l{i}"} for i in range(17)], "1 to 16 levels", id="too-many"),
        pytest.param([{"nodeLabel": "zone", "alias": "no spaces"}], "not a valid alias", id="alias-syntax"),
    ],
)
def test_topology_schema_rules(levels: list[dict[str, str]], fragment: str) -> None:
    result = validate_topology(kai_topology(*levels))
    assert not result.accepted
    assert fragment in result.message


def test_topology_update_without_old_is_create() -> None:
    assert validate_topology(kai_topology({"nodeLabel": "zone"}), operation="UPDATE").accepted


def test_topology_from_object_keeps_aliases() -> None:
    topology = topology_from_object(
        kai_topology(
            {"nodeLabel": "example.com/rack", "alias": "rack"}, {"nodeLabel": "kubernetes.io/hostname"}
        )
    )
    assert topology.levels == ("example.com/rack", "kubernetes.io/hostname")
    assert topology.resolve("rack") == "example.com/rack"
    with pytest.raises(TopologySpecError):
        topology_from_object(kai_topology())
