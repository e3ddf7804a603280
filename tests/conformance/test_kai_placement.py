"""Every KAI placement case against the hierarchical solver (FORMAT.md §6.3, §6.4)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

import pytest

from conformance import kai_case
from conformance.loader import Case, missing_facts, params, skip_if_conflicted
from toposched.engine import place_gang
from toposched.model import Placement, Policy, Unschedulable


def _run(case: Case) -> Placement | Unschedulable:
    main, snapshots = kai_case.snapshots_of(case.data)
    return place_gang(kai_case.gang_of(case.data), main, policy=Policy.BINPACK, snapshots=snapshots)


def _check(case: Mapping[str, Any], expect: Mapping[str, Any], result: Placement | Unschedulable) -> None:
    running = {p["name"] for p in case["pods"] if p.get("nodeName")}
    labels = {n["name"]: n.get("labels", {}) for n in case["nodes"]}
    if isinstance(result, Unschedulable):
        assert expect.get("unschedulable") is True, f"unexpected failure: {result.message}"
        missing = missing_facts(expect.get("reasonFacts", []), result.message, result.facts())
        assert not missing, f"facts {missing} not in {result.message!r} / {result.facts()}"
        return
    node_of = {p.pod: p.node for p in result.pods}
    new = {pod: node for pod, node in node_of.items() if pod not in running}
    if expect.get("unschedulable") is True:
        assert not new, f"expected nothing placed, got {new}"
        return
    if expect.get("unschedulable") is False or "domain" in expect:
        # A domain pins where the gang went, so the whole gang must be there: a partial placement
        # inside the right domain is no pass.
        pending = sorted(p["name"] for p in case["pods"] if p["name"] not in node_of)
        assert not pending, f"pods left pending: {pending}"
    for pod, node in (expect.get("podNodes") or {}).items():
        assert node_of.get(pod) == node, (pod, node_of.get(pod), node)
    by_group: dict[str, list[str]] = {}
    for p in result.pods:
        by_group.setdefault(p.group, []).append(str(p.node))
    for name, raw in (expect.get("assignments") or {}).items():
        got = Counter(tuple(labels[n][lvl] for lvl in raw["levels"]) for n in by_group.get(name, []))
        want = Counter({tuple(d["values"]): int(d["count"]) for d in raw["domains"]})
        assert got == want, (name, got, want)
    if "domain" in expect:
        level, (value,) = expect["domain"]["level"], expect["domain"]["values"]
        assert new, "no pod was placed"
        assert {labels[n][level] for n in new.values()} == {value}, new
    for name, nodes in (expect.get("nodeSets") or {}).items():
        assert set(by_group.get(name, [])) == set(nodes), (name, by_group.get(name))
    each = expect.get("eachInOneDomain")
    if each:
        level = each["level"]
        domains = []
        for name in each["subGroups"]:
            values = {labels[n][level] for n in by_group.get(name, [])}
            assert len(values) == 1, (name, values)
            domains.append(values.pop())
        if each.get("distinct"):
            assert len(set(domains)) == len(domains), domains
        if "union" in each:
            assert set(domains) == set(each["union"]), domains


@pytest.mark.parametrize("case", params("kai", {"placement"}))
def test_placement(case: Case) -> None:
    skip_if_conflicted(case)
    _check(case.data, case.expect, _run(case))


@pytest.mark.parametrize("case", params("kai", {"placement"}))
def test_placement_is_deterministic(case: Case) -> None:
    skip_if_conflicted(case)
    assert _run(case) == _run(case)
