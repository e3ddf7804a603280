"""OSMO conformance cases (FORMAT.md §7.2 compile, §8.2 validate, §9.2 lifecycle): exact PodGroup
specs (§3.3), pod labels and annotations, the pool's Topology, Topology sync operations; facts
per §5, seed conflicts per §4."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import jsonschema
import pytest
import yaml

from conformance.loader import (
    Case,
    conformance_root,
    missing_facts,
    params,
    skip_if_conflicted,
    wildcard_match,
)
from toposched.frontends.osmo import (
    apply_operations,
    compile_objects,
    parse_pool,
    parse_workflow,
    sync_topologies,
)
from toposched.frontends.osmo.pool import Backend
from toposched.model import SpecError


def assert_spec_exact(actual: Mapping[str, Any], expected: Mapping[str, Any], where: str) -> None:
    """§3.3 OSMO mode: every key must match, no extra keys; subGroups matched by name."""
    assert set(actual) == set(expected), f"{where}: keys {sorted(actual)} != {sorted(expected)}"
    for key, want in expected.items():
        if key == "subGroups":
            got = {sg["name"]: sg for sg in actual[key]}
            assert len(got) == len(actual[key]), f"{where}: duplicate subgroup names"
            assert set(got) == {sg["name"] for sg in want}, f"{where}: subgroups {sorted(got)}"
            for sg in want:
                assert got[sg["name"]] == sg, f"{where}: subgroup {sg['name']}"
        else:
            assert actual[key] == want, f"{where}.{key}: {actual[key]!r} != {want!r}"


def check_pods(pods: Mapping[str, Any], expected: Mapping[str, Any]) -> None:
    for task, want in expected.items():
        meta = pods[task]["metadata"]
        for key, value in (want.get("labels") or {}).items():
            assert meta["labels"].get(key) == value, f"pod {task}: label {key}"
        for key, value in (want.get("annotations") or {}).items():
            assert key in meta["annotations"], f"pod {task}: annotation {key} missing"
            assert wildcard_match(value, meta["annotations"][key]), f"pod {task}: annotation {key}"
        for key in want.get("labelsAbsent") or ():
            assert key not in meta["labels"], f"pod {task}: label {key} must be absent"


def crd_schema(file: str) -> dict[str, Any]:
    crd = yaml.safe_load((conformance_root().parent / "schemas" / "kai" / file).read_text())
    return crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]  # type: ignore[no-any-return]  # parsed YAML


def pool_of(data: Mapping[str, Any]) -> Any:
    return parse_pool(data["pool"], data["backend"])


@pytest.mark.parametrize("case", params("osmo", ["compile"]))
def test_osmo_compile(case: Case) -> None:
    skip_if_conflicted(case)
    data = case.data["input"]
    expect = case.expect
    pool = pool_of(data)
    if "workflow" not in data:
        out = compile_objects(
            parse_workflow({"workflow": {"name": "w", "tasks": [{"name": "t"}]}}, pool), pool
        )
    else:
        workflow = parse_workflow({"workflow": data["workflow"]}, pool)
        out = compile_objects(workflow, pool, data.get("priority", "NORMAL"))
        by_task = {t.name: g.name for g in workflow.groups for t in g.tasks}
        for task, meta in out["pods"].items():
            group = out["podGroups"][by_task[task]]
            assert meta["metadata"]["annotations"]["pod-group-name"] == group["metadata"]["name"]
    if "podGroup" in expect:
        assert len(out["podGroups"]) == 1
        assert_spec_exact(next(iter(out["podGroups"].values()))["spec"], expect["podGroup"], "podGroup")
    for name, spec in (expect.get("podGroups") or {}).items():
        assert_spec_exact(out["podGroups"][name]["spec"], spec, f"podGroups.{name}")
    if "podGroups" in expect:
        assert set(out["podGroups"]) == set(expect["podGroups"])
    check_pods(out["pods"], expect.get("pods") or {})
    if "topology" in expect:
        assert out["topology"] == expect["topology"]
    for podgroup in out["podGroups"].values():
        jsonschema.validate(podgroup, crd_schema("scheduling.run.ai_podgroups.yaml"))
    if out["topology"] is not None:
        jsonschema.validate(out["topology"], crd_schema("kai.scheduler_topologies.yaml"))


@pytest.mark.parametrize("case", params("osmo", ["validate"]))
def test_osmo_validate(case: Case) -> None:
    skip_if_conflicted(case)
    data = case.data["input"]
    expect = case.expect
    error: SpecError | None = None
    try:
        pool = pool_of(data)
        if "workflow" in data:
            parse_workflow({"workflow": data["workflow"]}, pool)
    except SpecError as exc:
        error = exc
    assert (error is None) is expect["accepted"], str(error)
    if error is not None:
        assert error.problems, "a rejection must say why"
        text = "; ".join(str(p) for p in error.problems)
        missing = missing_facts(expect.get("reasonFacts", []), text, [p.path for p in error.problems])
        assert not missing, f"facts {missing} not in {text!r}"


@pytest.mark.parametrize("case", params("osmo", ["lifecycle"]))
def test_osmo_lifecycle(case: Case) -> None:
    skip_if_conflicted(case)
    data = case.data["input"]
    backend = Backend.model_validate(data["backend"])
    state: list[Mapping[str, Any]] = list(data.get("clusterObjects") or [])
    for i, step in enumerate(case.data["steps"]):
        pools = [parse_pool(p, backend) for p in step["do"]["syncPools"]]
        ops = sync_topologies(backend, pools, state)
        want = step["expect"]
        assert [{"op": o.op.value, "name": o.name} for o in ops] == want["operations"], f"step {i}"
        state = apply_operations(state, ops)
        ours = {
            o["metadata"]["name"]: [lv["nodeLabel"] for lv in o["spec"]["levels"]]
            for o in state
            if o["metadata"].get("labels", {}).get("osmo.namespace") == backend.k8s_namespace
        }
        assert ours == want["topologies"], f"step {i}"
