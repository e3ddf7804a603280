"""Every Kueue conformance case with slices, on a cluster of at least 4,608 nodes (issue 27, item
7): its cluster repeated side by side (each copy under its own values of every level), its
workload asking for twice the pods (leaders stay one pod), so most of them are refused there.

Each refusal's explanation keeps its counts to what was asked: no candidate holds more pods than
the group needs, no slice layer more slices than needed, every group named short holds less than
it needs, and a candidate short of slices names where they are missing. Every suggestion places
when applied. (Kueue's own reason counts each layer alone and may say more: it is kept word for
word.)"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import pytest

from conformance import kueue_case as kc
from conformance.loader import Case, discover
from toposched.engine import place
from toposched.engine.explain import apply_suggestion, explain_refusal
from toposched.model import Cluster, Placement, Search, Unschedulable

NODES = 4608


def _sliced(case: Case) -> bool:
    return any(
        "sliceRequired" in (p.get("topologyRequest") or {})
        or "sliceConstraints" in (p.get("topologyRequest") or {})
        for p in case.data["podSets"]
    )


CASES = [c for c in discover("kueue", {"placement"}) if _sliced(c)]


def large(case: Mapping[str, Any]) -> dict[str, Any]:
    """The case on its cluster repeated to at least ``NODES`` nodes, asking for twice the pods."""
    levels = case["topology"]["levels"]
    copies = math.ceil(NODES / len(case["nodes"]))
    nodes = [
        {
            **raw,
            "name": f"c{k}-{raw['name']}",
            "labels": {
                key: f"c{k}-{value}" if key in levels else value for key, value in raw["labels"].items()
            },
        }
        for k in range(copies)
        for raw in case["nodes"]
    ]
    podsets = [{**p, "count": p["count"] * 2 if p["count"] > 1 else 1} for p in case["podSets"]]
    return {**case, "nodes": nodes, "podSets": podsets}


def test_most_slice_cases_are_refused_on_the_large_cluster() -> None:
    """The sweep below explains something: most doubled workloads do not place."""
    refused = 0
    for case in CASES:
        data = large(case.data)
        nodes, pods = kc.nodes_of(data)
        topology = kc.topology_of(data)
        result = place(kc.gang_of(data), Cluster.create(nodes, pods, [topology]), topology=topology)
        refused += isinstance(result, Unschedulable)
    assert len(CASES) >= 30 and refused * 2 > len(CASES)


@pytest.mark.parametrize("case", [pytest.param(c, id=c.id) for c in CASES])
def test_explanations_never_count_more_than_asked(case: Case) -> None:
    data = large(case.data)
    nodes, pods = kc.nodes_of(data)
    topology = kc.topology_of(data)
    cluster = Cluster.create(nodes, pods, [topology])
    assert len(cluster.nodes) >= NODES
    gang, policy = kc.gang_of(data), kc.policy_of(data)
    refusal = place(gang, cluster, topology=topology, policy=policy, search=Search.COMPLETE, probe=True)
    if isinstance(refusal, Placement):
        return  # room enough in the copies together: nothing to explain
    explanation = explain_refusal(
        gang, cluster, refusal, topology=topology, policy=policy, search=Search.COMPLETE, probed=True
    )
    for fit in explanation.candidates:
        assert fit.fit <= fit.needed, fit.text()
        for layer in fit.layers:
            assert 0 <= layer.fit <= layer.needed, fit.text()
        for short in fit.short:
            assert short.held < short.full, fit.text()
        if fit.layers and fit.layers[-1].fit < fit.layers[-1].needed:
            assert fit.short, f"short of slices but no group named: {fit.text()}"
    for suggestion in explanation.suggestions:
        changed, on, search = apply_suggestion(gang, cluster, suggestion, Search.COMPLETE)
        placed = place(changed, on, topology=topology, policy=policy, search=search)
        assert isinstance(placed, Placement), f"suggestion {suggestion.text!r} does not place"
