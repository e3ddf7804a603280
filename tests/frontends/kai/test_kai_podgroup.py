"""PodGroup and Topology admission (beyond the conformance cases)."""

from __future__ import annotations

from typing import Any

import pytest

from builders import podgroup as pg
from toposched.frontends.kai import topology_from_object, validate_podgroup, validate_topology
from toposched.model import TopologySpecError


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
        pytest.param(
            [{"nodeLabel": "bad label"}],
            'spec.levels[0].nodeLabel: Invalid value: "bad label": spec.levels[0].nodeLabel in body should match',
            id="label-syntax",
        ),
        pytest.param(
            [{"nodeLabel": f"l{i}"} for i in range(17)],
            "spec.levels: Too many: 17: must have at most 16 items",
            id="too-many",
        ),
        pytest.param(
            [{"nodeLabel": "zone", "alias": "no spaces"}],
            'spec.levels[0].alias: Invalid value: "no spaces": spec.levels[0].alias in body should match',
            id="alias-syntax",
        ),
    ],
)
def test_topology_schema_rules(levels: list[dict[str, str]], fragment: str) -> None:
    """The CRD's rules, with the API server's field paths and messages."""
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


@pytest.mark.parametrize(
    ("sub_groups", "path"),
    [
        ([{"name": "a", "parent": "a", "minMember": 1}], "spec.subGroups"),
        ([{"name": "a", "parent": "b"}, {"name": "b", "parent": "a"}], "spec.subGroups"),
        ([{"name": "a", "minMember": 1}, {"name": "a", "minMember": 1}], "spec.subGroups[1].name"),
    ],
    ids=["self-parent", "two-cycle", "duplicate"],
)
def test_a_podgroup_file_the_webhook_refuses_is_refused_not_a_crash(
    sub_groups: list[dict[str, Any]], path: str
) -> None:
    """Found by the differential validation (diffval seed 231; the KAI conformance case
    kai-validate-subgroups-duplicate-before-cycle): reading such a PodGroup with its pods
    recursed without end building the subgroup tree."""
    from toposched.frontends.registry import CompileContext, default_registry
    from toposched.model import WorkloadSpecError

    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "p", "namespace": "ns", "annotations": {"pod-group-name": "pg"}},
        "spec": {"containers": [{"name": "c", "image": "i"}]},
    }
    with pytest.raises(WorkloadSpecError) as refused:
        default_registry().compile([pg({"subGroups": sub_groups}), pod], CompileContext())
    assert path in [p.path for p in refused.value.problems]
