"""The KAI PodGroup as typed data: parsing applies the CRD schema rules, writing gives them back."""

from __future__ import annotations

from typing import Any

import pytest

from builders import podgroup as pg
from toposched.model import WorkloadSpecError
from toposched.wire.kai import PodGroup, SubGroup, TopologyConstraint, parse_podgroup


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


def test_podgroup_defaults() -> None:
    group = PodGroup("x")
    assert group.to_object()["spec"] == {}
