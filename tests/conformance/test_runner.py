"""The conformance runner itself: it cannot pass without cases under CI, numbers are matched as
whole numbers, and the placement checks catch what FORMAT.md §6.4 says they pin."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conformance import test_kai_placement, test_kueue
from conformance.loader import LOCAL, Case, missing_facts, params, root_of
from toposched.model import DomainCount, Placement, PodPlacement, Policy, TopologyAssignment

HOST = "kubernetes.io/hostname"
RACK = "rack"


@pytest.fixture
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("TOPOSCHED_CONFORMANCE", str(tmp_path))
    return tmp_path


@pytest.mark.parametrize("ci", ["true", "TRUE", "1"])
def test_a_missing_folder_fails_collection_under_ci(
    root: Path, ci: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CI", ci)
    with pytest.raises(pytest.fail.Exception, match=f"{root / 'kueue'} does not exist"):
        params("kueue", {"placement"})


def test_a_folder_without_cases_of_the_kind_fails_under_ci(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CI", "true")
    (root / "kai").mkdir()
    (root / "kai" / "kai-a.json").write_text(json.dumps({"id": "kai-a", "kind": "compile"}))
    with pytest.raises(pytest.fail.Exception, match="has no placement cases"):
        params("kai", {"placement"})


def test_outside_ci_the_skip_names_the_folder(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CI", raising=False)
    (param,) = params("grove", ["validate"])
    (mark,) = param.marks
    assert mark.name == "skip"
    assert str(root / "grove") in mark.kwargs["reason"]


def test_cases_become_parameters_named_by_id(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CI", "true")
    (root / "osmo").mkdir()
    (root / "osmo" / "osmo-x.json").write_text(json.dumps({"id": "osmo-x", "kind": "compile"}))
    assert [p.id for p in params("osmo", ["compile"])] == ["osmo-x"]


@pytest.mark.parametrize(
    ("fact", "message", "found"),
    [
        ("1", "allows to fit only 16 out of 18 pod(s)", False),
        ("1", "allows to fit only 1 out of 18 pod(s)", True),
        ("16", "fits 160 pods", False),
        ("16", 'excluded: resource "cpu": 16', True),
        ("2", "2/4 slice(s) fit", True),
        ("rack", "on level cloud.com/rack-x", True),
    ],
)
def test_numbers_match_as_whole_numbers(fact: str, message: str, found: bool) -> None:
    assert (missing_facts([fact], message) == []) is found


def test_a_number_may_still_equal_a_structured_value() -> None:
    assert missing_facts(["1"], "no such number here", [1]) == []


def _kueue_case(tmp_path: Path) -> Case:
    nodes = [{"name": f"n{i}", "labels": {RACK: f"r{i // 2}", HOST: f"h{i}"}} for i in range(4)]
    return Case("kueue", tmp_path / "c.json", {"id": "c", "kind": "placement", "nodes": nodes})


def _placement(nodes: list[str], domains: list[tuple[str, int]]) -> Placement:
    pods = tuple(PodPlacement(f"main-{i}", "main", i, node, ()) for i, node in enumerate(nodes))
    assignment = TopologyAssignment((RACK,), tuple(DomainCount((v,), c) for v, c in domains))
    return Placement("c", "default", Policy.MIXED, pods, {"main": assignment})


def test_kueue_assignment_agreeing_with_the_pods_passes(tmp_path: Path) -> None:
    test_kueue._check_assignments_hold_the_pods(_kueue_case(tmp_path), _placement(["n0", "n1"], [("r0", 2)]))


@pytest.mark.parametrize(
    ("nodes", "domains"),
    [
        (["n0", "n2"], [("r0", 2)]),  # a pod's node is outside its assigned domain
        (["n0", "n1"], [("r0", 1), ("r1", 1)]),  # the counts disagree with the pods
        (["n0", "n9"], [("r0", 2)]),  # a node the cluster does not have
    ],
)
def test_kueue_assignment_not_describing_the_pods_fails(
    tmp_path: Path, nodes: list[str], domains: list[tuple[str, int]]
) -> None:
    with pytest.raises(AssertionError):
        test_kueue._check_assignments_hold_the_pods(_kueue_case(tmp_path), _placement(nodes, domains))


def test_kai_domain_expectation_needs_every_pod_placed() -> None:
    case = {
        "nodes": [{"name": "n0", "labels": {RACK: "r0"}}],
        "pods": [{"name": "p0"}, {"name": "p1"}],
    }
    partial = Placement("g", "t", Policy.BINPACK, (PodPlacement("p0", "podgroup", 0, "n0", ()),), {})
    expect = {"domain": {"level": RACK, "values": ["r0"]}}
    with pytest.raises(AssertionError, match="pending"):
        test_kai_placement._check(case, expect, partial)


def test_the_projects_own_sources_sit_beside_the_shared_ones(monkeypatch: pytest.MonkeyPatch) -> None:
    """kube's cases are in tests/conformance/cases, the shared sources in ../shared/conformance."""
    monkeypatch.delenv("TOPOSCHED_CONFORMANCE", raising=False)
    assert root_of("kube") == LOCAL
    assert root_of("kueue") != LOCAL
    ids = [p.id for p in params("kube", {"validate", "placement"})]
    assert len(ids) > 600 and all(i.startswith("kube-") for i in ids)
