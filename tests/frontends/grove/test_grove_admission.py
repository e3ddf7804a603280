"""Admission rules not pinned by the conformance cases: the topologyName alias, the retry rule,
the level-update guard and typed errors."""

from __future__ import annotations

from typing import Any

import pytest

from toposched.frontends.grove import Resource, admit, parse_podcliqueset
from toposched.model import TopologySpecError, WorkloadSpecError

CONFIG = {"topologyAwareScheduling": {"enabled": True}}
LEVELS = [{"domain": "zone", "key": "z"}, {"domain": "rack", "key": "r"}]


def topology(name: str, levels: list[dict[str, str]] = LEVELS) -> dict[str, Any]:
    return {"kind": "ClusterTopology", "metadata": {"name": name}, "spec": {"levels": levels}}


def pcs(template: dict[str, Any]) -> dict[str, Any]:
    cliques = [{"name": "w", "spec": {"replicas": 2}}]
    return {
        "kind": "PodCliqueSet",
        "metadata": {"name": "p"},
        "spec": {"template": {"cliques": cliques, **template}},
    }


@pytest.mark.parametrize(
    ("template", "accepted"),
    [
        pytest.param({"topologyConstraint": {"packDomain": "rack", "topologyName": "a"}}, True, id="alias-names-topology"),
        pytest.param({"clusterTopologyName": "a", "topologyConstraint": {"packDomain": "rack", "topologyName": "b"}}, False, id="alias-disagrees"),
        pytest.param({"topologyConstraint": {"packDomain": "rack", "topologyName": "missing"}}, False, id="alias-not-found"),
        pytest.param({"topologyConstraint": {"packDomain": "rack"}}, False, id="default-missing"),
    ],
)  # fmt: skip
def test_topology_reference(template: dict[str, Any], accepted: bool) -> None:
    answer = admit(
        "PodCliqueSet",
        "create",
        pcs(template),
        existing=[topology("a"), topology("b")],
        operator_config=CONFIG,
    )
    assert answer.accepted is accepted, answer.message


def test_alias_resolves_like_the_draft_field() -> None:
    parsed = parse_podcliqueset(pcs({"topologyConstraint": {"packDomain": "rack", "topologyName": "a"}}))
    assert parsed.resolved_topology() == "a"


def test_a_clique_names_the_topology_of_an_unconstrained_set() -> None:
    """Grove's CRD names the topology in each constraint; a set without one of its own takes the
    name its cliques give (what ``compile --to grove`` writes for a gang constrained below its root)."""
    obj = pcs({})
    obj["spec"]["template"]["cliques"][0]["topologyConstraint"] = {
        "topologyName": "b",
        "pack": {"required": "rack"},
    }
    assert parse_podcliqueset(obj).resolved_topology() == "b"
    answer = admit(
        "PodCliqueSet", "create", obj, existing=[topology("a"), topology("b")], operator_config=CONFIG
    )
    assert answer.accepted, answer.message


@pytest.mark.parametrize(("bound", "accepted"), [(0, True), (1, False)], ids=["pending", "scheduled"])
def test_reference_change_depends_on_bound_pods(bound: int, accepted: bool) -> None:
    old = pcs({"clusterTopologyName": "a", "topologyConstraint": {"packDomain": "rack"}})
    new = pcs({"clusterTopologyName": "b", "topologyConstraint": {"packDomain": "rack"}})
    answer = admit(
        "PodCliqueSet", "update", new, old, [topology("a"), topology("b")], CONFIG, {"default/p": bound}
    )
    assert answer.accepted is accepted
    if not accepted:
        assert "1 pods" in answer.message and answer.problems[0].path == "spec.template.clusterTopologyName"


def test_retry_is_checked_against_the_new_topology() -> None:
    old = pcs({"clusterTopologyName": "a", "topologyConstraint": {"packDomain": "rack"}})
    new = pcs({"clusterTopologyName": "b", "topologyConstraint": {"packDomain": "rack"}})
    answer = admit("PodCliqueSet", "update", new, old, [topology("a"), topology("b", LEVELS[:1])], CONFIG)
    assert not answer.accepted and "does not exist in cluster topology 'b'" in answer.message


@pytest.mark.parametrize(("bound", "accepted"), [(0, True), (3, False)], ids=["pending", "scheduled"])
def test_level_update_guard(bound: int, accepted: bool) -> None:
    user = pcs({"clusterTopologyName": "a", "topologyConstraint": {"packDomain": "zone"}})
    answer = admit(
        "ClusterTopology",
        "update",
        topology("a", LEVELS[:1]),
        topology("a"),
        [user],
        CONFIG,
        {"default/p": bound},
    )
    assert answer.accepted is accepted
    if not accepted:
        assert "default/p" in answer.message


def test_metadata_only_update_passes_the_guard() -> None:
    user = pcs({"clusterTopologyName": "a", "topologyConstraint": {"packDomain": "zone"}})
    new = topology("a")
    new["metadata"]["labels"] = {"team": "infra"}
    assert admit("ClusterTopology", "update", new, topology("a"), [user], CONFIG, {"default/p": 1}).accepted


def test_every_problem_is_reported_with_its_path() -> None:
    bad = topology(
        "t", [{"domain": "Zone", "key": "-z"}, {"domain": "rack", "key": "r"}, {"domain": "rack", "key": "r"}]
    )
    answer = admit("ClusterTopology", "create", bad, operator_config=CONFIG)
    paths = [p.path for p in answer.problems]
    assert paths == [
        "spec.levels[0].domain",
        "spec.levels[0].key",
        "spec.levels[2].domain",
        "spec.levels[2].key",
    ]
    with pytest.raises(TopologySpecError):
        answer.raise_if_rejected(Resource.CLUSTER_TOPOLOGY)


def test_rejected_workload_raises_workload_error() -> None:
    answer = admit(
        "PodCliqueSet",
        "create",
        pcs({"clusterTopologyName": "a"}),
        existing=[topology("a")],
        operator_config=CONFIG,
    )
    with pytest.raises(WorkloadSpecError) as caught:
        answer.raise_if_rejected("PodCliqueSet")
    assert caught.value.problems[0].path == "spec.template.clusterTopologyName"


def test_reserved_default_name_warns() -> None:
    answer = admit("ClusterTopology", "create", topology("grove-topology"), operator_config=CONFIG)
    assert answer.accepted and "reserved" in answer.warnings[0]
