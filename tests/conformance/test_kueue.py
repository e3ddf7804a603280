"""Every Kueue conformance case (placement and lifecycle) against the engine."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

import pytest

from conformance import kueue_case as kc
from conformance.loader import Case, missing_facts, params, skip_if_conflicted
from toposched.engine import place_gang, replace_failed_node
from toposched.model import Gang, Placement, Unschedulable
from toposched.snapshot import Snapshot
from toposched.topology import TopologyTree


def _snapshot(case: Case) -> Snapshot:
    nodes, pods = kc.nodes_of(case.data)
    return Snapshot.build(TopologyTree.build(kc.topology_of(case.data), nodes), pods)


def _check(case: Case, expect: Mapping[str, Any], result: Placement | Unschedulable, gang: Gang) -> None:
    if expect.get("unschedulable"):
        assert isinstance(result, Unschedulable), f"expected unschedulable, got {result}"
        missing = missing_facts(expect.get("reasonFacts", []), result.message, result.facts())
        assert not missing, f"facts {missing} not in {result.message!r}"
        return
    assert isinstance(result, Placement), f"expected a placement, got: {getattr(result, 'message', result)}"
    assert len(result.pods) == gang.size, "every pod of the gang is placed"
    _check_assignments_hold_the_pods(case, result)
    for name, raw in (expect.get("assignments") or {}).items():
        want = kc.assignment_of(raw)
        got = result.assignments[name]
        assert got.levels == want.levels, name
        assert kc.domains_multiset(got) == kc.domains_multiset(want), name


def _check_assignments_hold_the_pods(case: Case, result: Placement) -> None:
    """Each PodSet's TopologyAssignment describes its pods: every pod's node lies in an assigned
    domain, and grouping the pods by their nodes' labels at the assignment's levels gives exactly
    its per-domain counts."""
    labels = {raw["name"]: raw.get("labels", {}) for raw in case.data["nodes"]}
    nodes_by_podset: dict[str, list[str]] = {}
    for pod in result.pods:
        assert pod.node in labels, f"{pod.pod} is on {pod.node!r}, not a node of the case"
        nodes_by_podset.setdefault(pod.group, []).append(pod.node)
    assert set(result.assignments) == set(nodes_by_podset), "one assignment per PodSet with pods"
    for name, assignment in result.assignments.items():
        from_pods = Counter(
            tuple(labels[node].get(level) for level in assignment.levels) for node in nodes_by_podset[name]
        )
        assert from_pods == Counter(kc.domains_multiset(assignment)), (name, from_pods, assignment)


@pytest.mark.parametrize("case", params("kueue", {"placement"}))
def test_placement(case: Case) -> None:
    skip_if_conflicted(case)
    gang = kc.gang_of(case.data)
    result = place_gang(gang, _snapshot(case), policy=kc.policy_of(case.data))
    _check(case, case.expect, result, gang)


@pytest.mark.parametrize("case", params("kueue", {"lifecycle"}))
def test_lifecycle(case: Case) -> None:
    skip_if_conflicted(case)
    gang = kc.gang_of(case.data)
    snapshot = _snapshot(case)
    for step in case.data["steps"]:
        action = step["do"]["replaceFailedNode"]
        current = {name: kc.assignment_of(raw) for name, raw in action["currentAssignments"].items()}
        result = replace_failed_node(gang, snapshot, current, action["node"], policy=kc.policy_of(case.data))
        _check(case, step["expect"], result, gang)
