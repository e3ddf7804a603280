"""KAI ``compile`` conformance cases: the PodGrouper (FORMAT.md §7.1) with partial PodGroup
matching (§3.3), the ``<any>`` wildcard (§3.4), seed conflicts (§4) and reason facts (§5)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from conformance.loader import Case, missing_facts, params, skip_if_conflicted, wildcard_match
from toposched.frontends.kai import compile_workload, resolved_levels, topology_from_object
from toposched.frontends.kai.keys import SUBGROUP_NAME
from toposched.model import WorkloadSpecError
from toposched.wire.kai import parse_podgroup

LEVEL_KEYS = {
    "requiredTopologyLevel": "required",
    "preferredTopologyLevel": "preferred",
    "topology": "topology",
}


def partial_mismatches(expected: object, actual: object, path: str) -> list[str]:
    """Differences under FORMAT.md §3.3 partial matching: listed keys only; ``None`` = absent;
    ``""`` = empty or absent; ``subGroups`` entries matched by name; ``<any>`` in strings."""
    if isinstance(expected, Mapping):
        if not isinstance(actual, Mapping):
            return [f"{path}: expected a mapping, got {actual!r}"]
        out: list[str] = []
        for key, want in expected.items():
            here = f"{path}.{key}"
            if want is None:
                if actual.get(key) is not None:
                    out.append(f"{here}: expected absent, got {actual[key]!r}")
            elif want == "":
                if actual.get(key, "") != "":
                    out.append(f"{here}: expected empty, got {actual[key]!r}")
            elif key == "subGroups":
                out += _subgroups(want, actual.get(key) or [], here)
            elif key not in actual and isinstance(want, Mapping):
                out += partial_mismatches(want, {}, here)  # an absent mapping = all keys empty
            elif key not in actual:
                out.append(f"{here}: missing (expected {want!r})")
            else:
                out += partial_mismatches(want, actual[key], here)
        return out
    if isinstance(expected, str) and isinstance(actual, str):
        return [] if wildcard_match(expected, actual) else [f"{path}: expected {expected!r}, got {actual!r}"]
    return [] if expected == actual else [f"{path}: expected {expected!r}, got {actual!r}"]


def _subgroups(expected: list[Mapping[str, Any]], actual: list[Mapping[str, Any]], path: str) -> list[str]:
    by_name = {sg["name"]: sg for sg in actual}
    out: list[str] = []
    for entry in expected:
        found = by_name.get(entry["name"])
        if found is None:
            out.append(f"{path}[{entry['name']}]: missing; have {sorted(by_name)}")
        else:
            out += partial_mismatches(entry, found, f"{path}[{entry['name']}]")
    return out


def check_aliases(case: Case, expect: Mapping[str, Any]) -> None:
    data = case.data["input"]
    topologies = [topology_from_object(t) for t in data["topologies"]]
    resolved = resolved_levels(parse_podgroup(data["podGroup"]), topologies)
    for name, levels in expect["resolvedConstraints"].items():
        for key, want in levels.items():
            assert getattr(resolved[name], LEVEL_KEYS[key]) == want, (name, key, resolved[name])


@pytest.mark.parametrize("case", params("kai", ["compile"]))
def test_kai_compile(case: Case) -> None:
    skip_if_conflicted(case)
    expect = case.expect
    data = case.data["input"]
    if "resolvedConstraints" in expect:
        check_aliases(case, expect)
        return
    if expect.get("error"):
        with pytest.raises(WorkloadSpecError) as caught:
            compile_workload(data["workload"], data.get("pod"))
        structured = [p.path for p in caught.value.problems]
        missing = missing_facts(expect.get("reasonFacts", []), str(caught.value), structured)
        assert not missing, f"facts {missing} not in {caught.value}"
        return
    for pod in data.get("pods", []):
        grouping = compile_workload(data["workload"], pod)
        assert wildcard_match(expect["podGroupNameByPod"][pod["metadata"]["name"]], grouping.pod_group.name)
    grouping = compile_workload(data["workload"], data.get("pod", data.get("pods", [{}])[0]))
    obj = grouping.pod_group.to_object()
    if "podGroup" in expect:
        problems = partial_mismatches(expect["podGroup"], obj, "podGroup")
        assert not problems, "\n".join(problems)
    names = [sg["name"] for sg in obj["spec"].get("subGroups", [])]
    if "subGroupCount" in expect:
        assert len(names) == expect["subGroupCount"], names
    if "subGroupOrder" in expect:
        assert names == expect["subGroupOrder"]
    for key, want in (expect.get("pod") or {}).get("labels", {}).items():
        got = grouping.pod_labels().get(key)
        assert key == SUBGROUP_NAME and got == want, (key, got, want)
