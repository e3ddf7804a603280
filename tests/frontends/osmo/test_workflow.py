"""Workflow specs: both spellings, leads, resources, topology keys, named error paths."""

from __future__ import annotations

from typing import Any

import pytest

from toposched.frontends.osmo import compile_objects, parse_pool, parse_workflow
from toposched.model import WorkloadSpecError

POOL = parse_pool(
    {
        "name": "p",
        "backend": {"name": "be", "k8s_namespace": "ns"},
        "topology_keys": [
            {"key": "zone", "label": "topology.kubernetes.io/zone"},
            {"key": "rack", "label": "topology.kubernetes.io/rack"},
        ],
    }
)


def task(name: str, **extra: Any) -> dict[str, Any]:
    return {"name": name, **extra}


def doc(
    groups: list[dict[str, Any]], resources: dict[str, Any] | None = None, beside: bool = False
) -> dict[str, Any]:
    wf: dict[str, Any] = {"name": "wf", "groups": groups}
    if beside:
        return {"workflow": wf, "resources": resources}
    if resources is not None:
        wf["resources"] = resources
    return {"workflow": wf}


RACK = {"default": {"topology": [{"key": "rack"}]}}


def problems(raw: dict[str, Any]) -> list[str]:
    with pytest.raises(WorkloadSpecError) as err:
        parse_workflow(raw, POOL)
    return [str(p) for p in err.value.problems]


def test_seed_spelling_resources_beside_workflow_without_lead() -> None:
    wf = parse_workflow(doc([{"name": "g", "tasks": [task("a"), task("b")]}], RACK, beside=True), POOL)
    (group,) = wf.groups
    assert [t.lead for t in group.tasks] == [True, False]
    assert group.tasks[0].requirements[0].label == "topology.kubernetes.io/rack"


def test_osmo_spelling_needs_one_lead() -> None:
    (msg,) = problems(doc([{"name": "g", "tasks": [task("a"), task("b")]}], RACK))
    assert msg.startswith("workflow.groups[g].tasks:") and "0 leader(s)" in msg


def test_seed_spelling_still_rejects_two_leads() -> None:
    (msg,) = problems(
        doc([{"name": "g", "tasks": [task("a", lead=True), task("b", lead=True)]}], RACK, beside=True)
    )
    assert "2 leader(s)" in msg


def test_resources_in_both_places_rejected() -> None:
    raw = doc([{"name": "g", "tasks": [task("a")]}], RACK)
    raw["resources"] = RACK
    assert any("both beside and inside" in m for m in problems(raw))


def test_unknown_field_path_names_group_and_task() -> None:
    (msg,) = problems(doc([{"name": "train", "tasks": [task("shard-1", replicas=2)]}], RACK))
    assert msg.startswith("workflow.groups[train].tasks[shard-1].replicas: unknown field 'replicas'")


def test_bad_requirement_type_names_field() -> None:
    raw = doc(
        [{"name": "g", "tasks": [task("a")]}],
        {"default": {"topology": [{"key": "rack", "requirementType": "soft"}]}},
    )
    (msg,) = problems(raw)
    assert "workflow.resources.default.topology[0].requirementType" in msg


@pytest.mark.parametrize(
    ("resources", "words"),
    [
        pytest.param(
            {"default": {"topology": [{"key": "rack"}, {"key": "rack", "group": "x"}]}},
            "listed twice",
            id="key-twice",
        ),
        pytest.param(
            {"default": {"topology": [{"key": "spine"}]}},
            'Topology key "spine" in resource "default"',
            id="key-not-in-pool",
        ),
        pytest.param({"other": {}}, "no 'default' resource", id="missing-default"),
    ],
)
def test_resource_problems(resources: dict[str, Any], words: str) -> None:
    assert any(words in m for m in problems(doc([{"name": "g", "tasks": [task("a")]}], resources)))


def test_topology_on_pool_without_keys_is_rejected() -> None:
    bare = parse_pool({"name": "p", "backend": {"name": "be", "k8s_namespace": "ns"}, "topology_keys": []})
    with pytest.raises(WorkloadSpecError) as err:
        parse_workflow(doc([{"name": "g", "tasks": [task("a")]}], RACK), bare)
    assert "the pool has no topology keys" in str(err.value)


def test_key_sets_must_form_a_prefix_chain() -> None:
    resources = {"r1": {"topology": [{"key": "rack"}]}, "r2": {"topology": [{"key": "zone"}]}}
    groups = [{"name": "g", "tasks": [task("a", resource="r1", lead=True), task("b", resource="r2")]}]
    (msg,) = problems(doc(groups, resources))
    assert "same topology keys" in msg and "rack" in msg and "zone" in msg


def test_top_level_tasks_become_groups() -> None:
    wf = parse_workflow(
        {"workflow": {"name": "wf", "tasks": [task("a"), task("b")], "resources": RACK}}, POOL
    )
    assert [g.name for g in wf.groups] == ["a-group", "b-group"]


def test_invalid_names_and_duplicates() -> None:
    msgs = problems(
        doc([{"name": "g", "tasks": [task("Shard_1", lead=True), task("shard-1"), task("-bad")]}], RACK)
    )
    assert any("'Shard_1' and 'shard-1'" in m for m in msgs)
    assert any("'-bad'" in m and "not a valid name" in m for m in msgs)


def test_requests_from_resources() -> None:
    res = {"default": {"gpu": 8, "cpu": 16, "memory": "64Gi", "storage": "100Gi"}}
    wf = parse_workflow(doc([{"name": "g", "tasks": [task("a")]}], res), POOL)
    req = wf.groups[0].tasks[0].requests
    assert (req["nvidia.com/gpu"], req["cpu"], req["memory"]) == (8, 16000, 64 * 2**30)


def test_scheduler_labels_overwrite_workflow_labels_and_stale_subgroup_dropped() -> None:
    raw = doc([{"name": "g", "tasks": [task("a")]}], RACK)
    raw["workflow"]["labels"] = {
        "kai.scheduler/queue": "mine",
        "kai.scheduler/subgroup-name": "x",
        "team": "ml",
    }
    out = compile_objects(parse_workflow(raw, POOL), POOL)
    labels = out["pods"]["a"]["metadata"]["labels"]
    assert labels["kai.scheduler/queue"] == "osmo-pool-ns-p" and labels["team"] == "ml"
    assert "kai.scheduler/subgroup-name" not in labels


def test_group_without_tasks() -> None:
    (msg,) = problems(doc([{"name": "g", "tasks": []}], RACK))
    assert "group 'g' has no tasks" in msg
