"""The ``kube`` conformance source: Kubernetes' own validation and placement tests for
Workload, PodGroup and CompositePodGroup, translated into cases (tests/conformance/cases/kube,
README there). ``validate`` cases go through the kube front end's admission (the API server's
checks); ``placement`` cases through the registry and the engine, as ``toposched place`` does."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import pytest

from conformance.case_nodes import case_node
from conformance.loader import Case, missing_facts, params, skip_if_conflicted
from toposched.cli.workloads import place_documents
from toposched.frontends.kube import validate_create, validate_update
from toposched.model import (
    Cluster,
    Placement,
    Problem,
    RunningPod,
    WorkloadSpecError,
)
from toposched.model.quantity import PODS
from toposched.model.resources import Resources

TYPES = {  # field.ErrorType as the API server prints it
    "FieldValueRequired": "Required value",
    "FieldValueForbidden": "Forbidden",
    "FieldValueInvalid": "Invalid value",
    "FieldValueDuplicate": "Duplicate value",
    "FieldValueNotSupported": "Unsupported value",
    "FieldValueTooMany": "Too many",
    "FieldValueTooLong": "Too long",
}


LONG_STRING = re.compile(r'"((?:[^"\\]|\\.){121,})"')
COMPOSITE = re.compile(r"^(Invalid value|Duplicate value): [\[{].*?(: [a-z][^{}\[\]]*)?$")


def comparable(message: str) -> str:
    """A message as the cases compare it: a quoted value past 120 characters cut as toposched
    cuts it, and a list or object value left out (the API server prints Go structs there, in
    their Go spelling)."""
    message = LONG_STRING.sub(lambda m: '"' + m.group(1)[:117] + '..."', message)
    found = COMPOSITE.match(message)
    return f"{found.group(1)}: <value>{found.group(2) or ''}" if found else message


def admission(case: Case) -> list[Problem]:
    given = case.data["input"]
    try:
        if given.get("operation", "create") == "update":
            validate_update(given["oldObject"], given["object"])
        else:
            validate_create(given["object"])
    except WorkloadSpecError as refused:
        return list(refused.problems)
    return []


@pytest.mark.parametrize("case", params("kube", {"validate"}))
def test_validate(case: Case) -> None:
    skip_if_conflicted(case)
    expect = case.expect
    found = admission(case)
    shown = "\n".join(f"  {p.path}: {p.message}" for p in found)
    if expect["accepted"]:
        assert not found, f"refused:\n{shown}"
        return
    assert found, "accepted"
    errors = expect.get("errors", [])
    got = sorted((p.path, comparable(p.message)) for p in found)
    want = sorted((e["field"], comparable(e["message"])) for e in errors)
    assert got == want, f"refused with:\n{shown}"
    facts = [p.path for p in found] + [p.message for p in found]
    assert missing_facts(expect.get("reasonFacts", []), "\n".join(facts)) == []


def cluster_of(case: Case) -> Cluster:
    """The case's nodes and what runs there: ``used`` is one pod's requests, or a list of the
    requests of each pod (kube-scheduler's scores count a pod asking no cpu or memory)."""
    nodes, running = [], []
    for raw in case.data["nodes"]:
        nodes.append(case_node(raw, Resources.parse(raw.get("allocatable", {}))))
        used = raw.get("used") or []
        for i, pod in enumerate([used] if isinstance(used, Mapping) else used):
            requests = Resources.parse({k: v for k, v in pod.items() if k != PODS})
            running.append(RunningPod(f"{raw['name']}-used{i}", "other", raw["name"], requests))
    return Cluster(tuple(nodes), tuple(running), ())


def node_of(result: Placement) -> dict[str, str | None]:
    return {p.pod: p.node for p in result.pods}


@pytest.mark.parametrize("case", params("kube", {"placement"}))
def test_placement(case: Case) -> None:
    skip_if_conflicted(case)
    expect = case.expect
    outcome = place_documents(list(case.data["input"]["objects"]), cluster_of(case))
    result = outcome.result
    placed = node_of(result) if isinstance(result, Placement) else {}
    for pod in expect.get("pending", []):
        assert placed.get(pod) is None, f"{pod} placed on {placed.get(pod)}"
    for pod, allowed in _nodes(expect).items():
        assert placed.get(pod) in allowed, f"{pod} on {placed.get(pod)}, not in {sorted(allowed)}"
    for entry in expect.get("sameDomain", []):
        labels = {n["name"]: n.get("labels", {}) for n in case.data["nodes"]}
        values = {labels[str(placed[p])].get(entry["key"]) for p in entry["pods"]}
        assert len(values) == 1 and None not in values, f"{entry['pods']} in {values}"
    if expect.get("unschedulable"):
        assert not placed or all(node is None for node in placed.values())
        facts = expect.get("reasonFacts", [])
        message = "" if isinstance(result, Placement) else result.message
        assert missing_facts(facts, message) == []


def _nodes(expect: Mapping[str, Any]) -> dict[str, set[str]]:
    """Per pod, the nodes it may be on (``assignments[].{pods, nodes}``)."""
    out: dict[str, set[str]] = {}
    for entry in expect.get("assignments", []):
        for pod in entry["pods"]:
            out[pod] = set(entry["nodes"])
    return out
