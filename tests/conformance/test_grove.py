"""Grove conformance cases (FORMAT.md §7.3, §8.3, §9.3): admission, PodCliqueSet → PodGang /
KAI PodGroup compilation and operator lifecycle steps through the topology registry."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from conformance.loader import Case, missing_facts, params, skip_if_conflicted, wildcard_match
from toposched.frontends.grove import (
    Admission,
    admit,
    build_kai_podgroup,
    build_podgangs,
    parse_operator_config,
    parse_podcliqueset,
    topologies_of,
)
from toposched.frontends.grove.operator import TopologyRegistry
from toposched.model import SpecError


@pytest.mark.parametrize("case", params("grove", ["validate"]))
def test_grove_validate(case: Case) -> None:
    skip_if_conflicted(case)
    data, expect = case.data["input"], case.expect
    result = admit(
        data["resource"],
        data["operation"],
        data["object"],
        data.get("oldObject"),
        data.get("existing") or [],
        data.get("operatorConfig"),
        data.get("scheduledPods"),
    )
    assert result.accepted is expect["accepted"], result.message
    if expect["accepted"]:
        reported = list(result.warnings)
        if "warningsContain" in expect:
            assert result.warnings, "expected a warning"
        else:
            return
        structured: list[str] = []
    else:
        assert result.problems, "a rejection must say why"
        reported = [str(p) for p in result.problems]
        structured = [p.path for p in result.problems]
    text = "; ".join(reported)
    missing = missing_facts(expect.get("reasonFacts", []), text, structured)
    assert not missing, f"facts {missing} not in {text!r}"


def matches(expected: object, actual: object) -> bool:
    """Partial match: listed keys must match (None = absent/unset), strings allow ``<any>``."""
    if isinstance(expected, Mapping):
        if not isinstance(actual, Mapping):
            return not expected and actual is None
        return all(matches(v, actual.get(k)) for k, v in expected.items())
    if isinstance(expected, str) and isinstance(actual, str):
        return wildcard_match(expected, actual)
    if isinstance(expected, list):
        return (
            isinstance(actual, list)
            and len(expected) == len(actual)
            and all(matches(e, a) for e, a in zip(expected, actual, strict=True))
        )
    return expected == actual


def same_set(expected: list[Any], actual: list[Mapping[str, Any]], key: str = "name") -> None:
    by_name = {a["metadata"][key] if "metadata" in a else a[key]: a for a in actual}
    assert len(expected) == len(actual), f"expected {len(expected)} objects, got {sorted(by_name)}"
    for entry in expected:
        name = entry["metadata"][key] if "metadata" in entry else entry[key]
        assert name in by_name, f"{name} missing from {sorted(by_name)}"


def check_podgang(expected: Mapping[str, Any], actual: Mapping[str, Any]) -> None:
    name = actual["metadata"]["name"]
    spec, want = actual["spec"], expected["spec"]
    assert spec["topologyConstraint"] == want["topologyConstraint"], name
    assert spec["topologyConstraintGroupConfigs"] == want["topologyConstraintGroupConfigs"], name
    same_set(want["podgroups"], spec["podgroups"])
    groups = {g["name"]: g for g in spec["podgroups"]}
    for group in want["podgroups"]:
        assert groups[group["name"]] == group, name
    assert matches(expected["metadata"].get("annotations", {}), actual["metadata"]["annotations"]), name
    for key in expected.get("annotationsAbsent", []):
        assert key not in actual["metadata"]["annotations"], f"{name}: {key} must be absent"


def created(obj: Mapping[str, Any], uid: str) -> dict[str, Any]:
    """``obj`` as the API server stores it on create: with a uid (what owner references name)."""
    return {**obj, "metadata": {**obj["metadata"], "uid": uid}}


def check_kai_podgroup(expected: Mapping[str, Any], actual: Mapping[str, Any], podgang_uid: str) -> None:
    meta, want_meta = actual["metadata"], expected["metadata"]
    (owner,) = meta["ownerReferences"]
    assert (owner["kind"], owner["name"], owner["uid"]) == ("PodGang", want_meta["ownerPodGang"], podgang_uid)
    assert owner["controller"] is True
    assert matches(want_meta.get("labels", {}), meta["labels"])
    assert matches(want_meta.get("annotations", {}), meta["annotations"])
    spec, want = actual["spec"], expected["spec"]
    for key in ("minMember", "queue", "priorityClassName"):
        if key in want:
            assert spec.get(key) == want[key], key
    assert spec["topologyConstraint"] == want["topologyConstraint"]
    same_set(want["subGroups"], spec["subGroups"])
    subs = {s["name"]: s for s in spec["subGroups"]}
    for sub in want["subGroups"]:
        assert matches(sub, subs[sub["name"]]), sub["name"]


def compile_case(data: Mapping[str, Any], expect: Mapping[str, Any]) -> None:
    config = parse_operator_config(data.get("operatorConfig"))
    existing = data.get("existing") or []
    pcs = parse_podcliqueset(data["podCliqueSet"])
    name = pcs.resolved_topology()
    topology = topologies_of(existing).get(name) if name else None
    built = build_podgangs(pcs, topology, tas_enabled=config.tas_enabled)
    same_set(expect["podGangs"], [b.object for b in built])
    by_name = {b.name: b for b in built}
    for gang in expect["podGangs"]:
        check_podgang(gang, by_name[gang["metadata"]["name"]].object)
    if "kaiPodGroups" in expect:
        # Grove's KAI backend builds a PodGroup for a PodGang that exists: the reference needs its uid.
        groups = [build_kai_podgroup(created(b.object, f"uid-{b.name}"), pcs).object for b in built]
        same_set(expect["kaiPodGroups"], groups)
        by_group = {g["metadata"]["name"]: g for g in groups}
        for group in expect["kaiPodGroups"]:
            owner = group["metadata"]["ownerPodGang"]
            check_kai_podgroup(group, by_group[group["metadata"]["name"]], f"uid-{owner}")
    pods = [pod for b in built for pod in b.pods()]
    if "podCount" in expect:
        assert len(pods) == expect["podCount"]
    for want in expect.get("pods", []):
        mine = [p for p in pods if p["metadata"]["labels"]["grove.io/podclique"] == want["podClique"]]
        assert len(mine) == want["count"], want["podClique"]
        for pod in mine:
            assert pod["spec"]["schedulerName"] == want["schedulerName"]
            assert matches(want.get("labels", {}), pod["metadata"]["labels"])
            assert matches(want.get("annotations", {}), pod["metadata"]["annotations"])


def podgang_case(data: Mapping[str, Any], expect: Mapping[str, Any]) -> None:
    podgang = created(data["podGang"], "uid-of-the-podgang")
    owner_name = podgang["metadata"]["ownerReference"]["name"]  # FORMAT.md §7.3: its PodCliqueSet
    owner = next(o for o in data["existing"] if o["metadata"]["name"] == owner_name)
    if expect.get("error"):
        with pytest.raises(SpecError) as caught:
            build_kai_podgroup(podgang, parse_podcliqueset(owner))
        problems = caught.value.problems
        text = "; ".join(str(p) for p in problems)
        missing = missing_facts(expect.get("reasonFacts", []), text, [p.path for p in problems])
        assert not missing, f"facts {missing} not in {text!r}"
        return
    built = build_kai_podgroup(podgang, parse_podcliqueset(owner))
    same_set(expect["kaiPodGroups"], [built.object])
    check_kai_podgroup(expect["kaiPodGroups"][0], built.object, "uid-of-the-podgang")
    for wanted in expect.get("podGangAnnotations", {}).values():
        assert matches(wanted, dict(built.podgang_annotations))


def topology_sync_case(data: Mapping[str, Any], expect: Mapping[str, Any]) -> None:
    registry = TopologyRegistry(data.get("operatorConfig"))
    for obj in data.get("existing") or []:
        registry.store(obj)
    registry.start(data.get("operatorConfig"))
    for want in expect.get("clusterTopologies", []):
        got = registry.get("ClusterTopology", want["metadata"]["name"])
        assert got is not None and got["spec"]["levels"] == want["spec"]["levels"]
    for want in expect.get("kaiTopologies", []):
        got = registry.get("KAITopology", want["metadata"]["name"])
        assert got is not None, want["metadata"]["name"]
        assert got["spec"]["levels"] == want["spec"]["levels"]
        assert matches(want["metadata"]["ownerReference"], got["metadata"]["ownerReferences"][0])
    for name in expect.get("kaiTopologiesAbsent", []):
        assert registry.get("KAITopology", name) is None, name


@pytest.mark.parametrize("case", params("grove", ["compile"]))
def test_grove_compile(case: Case) -> None:
    skip_if_conflicted(case)
    data, expect = case.data["input"], case.expect
    if "podCliqueSet" in data:
        compile_case(data, expect)
    elif "podGang" in data:
        podgang_case(data, expect)
    else:
        topology_sync_case(data, expect)


def check_object(registry: TopologyRegistry, want: Mapping[str, Any]) -> None:
    kind, name = want["kind"], want["name"]
    obj = registry.get(kind, name, want.get("namespace", ""))
    label = f"{kind} {name}"
    if want.get("exists") is False:
        assert obj is None, f"{label} should be gone"
        return
    assert obj is not None, f"{label} missing"
    meta = obj["metadata"]
    if "deletionRequested" in want:
        assert ("deletionTimestamp" in meta) is want["deletionRequested"], label
    for finalizer in want.get("finalizersInclude", []):
        assert finalizer in meta.get("finalizers", []), f"{label}: finalizer {finalizer}"
    assert matches(want.get("labels", {}), meta.get("labels", {})), label
    assert matches(want.get("annotations", {}), meta.get("annotations", {})), label
    for key in want.get("annotationsAbsent", []):
        assert key not in meta.get("annotations", {}), f"{label}: {key}"
    if "levels" in want:
        assert obj["spec"]["levels"] == want["levels"], label
    if "ownerReference" in want:
        assert matches(want["ownerReference"], meta["ownerReferences"][0]), label
    if "spec" in want:
        assert obj["spec"]["topologyConstraint"] == want["spec"]["topologyConstraint"], label
    status = obj.get("status", {})
    conditions = want.get("conditions", []) + want.get("status", {}).get("conditions", [])
    for condition in conditions:
        assert any(matches(condition, c) for c in status.get("conditions", [])), f"{label}: {condition}"
    if "schedulerTopologyStatuses" in want.get("status", {}):
        assert matches(want["status"]["schedulerTopologyStatuses"], status["schedulerTopologyStatuses"]), (
            label
        )


def run_step(registry: TopologyRegistry, do: Mapping[str, Any]) -> Admission | None:
    op = do["op"]
    if op == "start":
        registry.start(do["operatorConfig"])
    elif op == "reconcile":
        registry.reconcile()
    elif op == "schedulePods":
        registry.schedule_pods(do["podCliqueSet"], do["count"])
    elif op == "create":
        return registry.create(do["object"])
    elif op == "update":
        return registry.update(do["object"])
    elif op == "delete":
        return registry.delete(do["kind"], do["name"], do.get("namespace", ""))
    else:
        raise AssertionError(f"unknown op {op}")
    return None


def run_lifecycle(data: Mapping[str, Any]) -> None:
    initial = data["initial"]
    registry = TopologyRegistry(initial.get("operatorConfig"))
    for obj in initial.get("objects", []):
        registry.store(obj)
    registry.start(initial.get("operatorConfig"))
    for number, step in enumerate(data["steps"]):
        answer = run_step(registry, step["do"])
        expect = step.get("expect") or {}
        if "accepted" in expect:
            assert answer is not None and answer.accepted is expect["accepted"], f"step {number}: {answer}"
            if not expect["accepted"]:
                text = answer.message
                missing = missing_facts(
                    expect.get("reasonFacts", []), text, [p.path for p in answer.problems]
                )
                assert not missing, f"step {number}: facts {missing} not in {text!r}"
        for want in expect.get("objects", []):
            check_object(registry, want)


@pytest.mark.parametrize("case", params("grove", ["lifecycle"]))
def test_grove_lifecycle(case: Case) -> None:
    skip_if_conflicted(case)
    run_lifecycle(case.data)
