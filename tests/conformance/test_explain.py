"""Explanations of every unschedulable Kueue and KAI placement case: they carry the case's
``reasonFacts``, and every suggestion places when applied."""

from __future__ import annotations

from typing import Any

import pytest

from conformance import kai_case
from conformance import kueue_case as kc
from conformance.loader import Case, discover, missing_facts, skip_if_conflicted
from toposched.engine import place
from toposched.engine.explain import Explanation, apply_suggestion, explain_refusal
from toposched.model import Cluster, Gang, Placement, Policy, Topology, Unschedulable


def _unschedulable(folder: str, kinds: set[str]) -> list[Any]:
    cases = [c for c in discover(folder, kinds) if c.expect.get("unschedulable") is True]
    return [pytest.param(case, id=case.id) for case in cases] or [pytest.param(None, marks=pytest.mark.skip)]


def _check(gang: Gang, cluster: Cluster, topology: Topology, policy: Policy, facts: list[str]) -> Explanation:
    refusal = place(gang, cluster, topology=topology, policy=policy)
    assert isinstance(refusal, Unschedulable)
    explanation = explain_refusal(gang, cluster, refusal, topology=topology, policy=policy)
    missing = missing_facts(facts, refusal.message, explanation.facts())
    assert not missing, f"facts {missing} not in the explanation"
    for suggestion in explanation.suggestions:
        changed, on, search = apply_suggestion(gang, cluster, suggestion)
        placed = place(changed, on, topology=topology, policy=policy, search=search)
        assert isinstance(placed, Placement), f"suggestion {suggestion.text!r} does not place"
    return explanation


@pytest.mark.parametrize("case", _unschedulable("kueue", {"placement"}))
def test_kueue_refusals_explain_themselves(case: Case) -> None:
    skip_if_conflicted(case)
    nodes, pods = kc.nodes_of(case.data)
    topology = kc.topology_of(case.data)
    cluster = Cluster.create(nodes, pods, [topology])
    _check(
        kc.gang_of(case.data), cluster, topology, kc.policy_of(case.data), case.expect.get("reasonFacts", [])
    )


@pytest.mark.parametrize("case", _unschedulable("kai", {"placement"}))
def test_kai_refusals_explain_themselves(case: Case) -> None:
    skip_if_conflicted(case)
    nodes, pods = kai_case.nodes_of(case.data)
    topologies = kai_case.topologies_of(case.data)
    main = next(t for t in topologies if t.name == case.data["topology"]["name"])
    cluster = Cluster.create(nodes, pods, topologies)
    _check(kai_case.gang_of(case.data), cluster, main, Policy.BINPACK, case.expect.get("reasonFacts", []))
