"""Segments for owner kinds the PodGrouper does not know (seed 002, "Unsupported Workloads"):
``kai.scheduler/pod-index-label`` names the index label, and a workload given with its Pods."""

from __future__ import annotations

from typing import Any

import pytest

from toposched.frontends.kai import compile_workload, load_kai, load_owned_pods
from toposched.model import WorkloadSpecError

TOPOLOGY = {
    "kai.scheduler/topology": "cluster-topology",
    "kai.scheduler/topology-required-placement": "zone",
}
SEGMENTS = {
    "kai.scheduler/segment-size": "4",
    "kai.scheduler/segment-topology-required-placement": "rack",
    "kai.scheduler/pod-index-label": "example.com/rank",
}


def trainer(notes: dict[str, str] | None = None, replicas: int | None = None) -> dict[str, Any]:
    spec = {} if replicas is None else {"replicas": replicas}
    return {
        "apiVersion": "example.com/v1",
        "kind": "Trainer",
        "metadata": {"name": "t", "uid": "u1", "annotations": TOPOLOGY if notes is None else notes},
        "spec": spec,
    }


def pod(index: int, notes: dict[str, str] | None = None, owner: str = "t") -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": f"t-{index}",
            "labels": {"example.com/rank": str(index)},
            "annotations": SEGMENTS if notes is None else notes,
            "ownerReferences": [{"apiVersion": "example.com/v1", "kind": "Trainer", "name": owner}],
        },
        "spec": {"containers": [{"name": "c", "resources": {"requests": {"nvidia.com/gpu": "4"}}}]},
    }


def test_segments_from_the_pod_index_label() -> None:
    grouping = compile_workload(trainer(), pod(9), replicas=10)
    group = grouping.pod_group
    assert group.min_member == 10
    assert (group.constraint.topology, group.constraint.required) == ("cluster-topology", "zone")
    subs = [(sg.name, sg.parent, sg.min_member) for sg in group.sub_groups]
    assert subs == [("segment-0", None, 4), ("segment-1", None, 4), ("segment-2", None, 2)]  # short last
    assert {(sg.constraint.topology, sg.constraint.required) for sg in group.sub_groups} == {
        ("cluster-topology", "rack")
    }
    assert grouping.subgroup == "segment-2"
    assert grouping.pod_labels() == {"kai.scheduler/subgroup-name": "segment-2"}
    assert grouping.warnings == ()


def test_segment_preferred_placement() -> None:
    notes = {**SEGMENTS, "kai.scheduler/segment-topology-preferred-placement": "node"}
    del notes["kai.scheduler/segment-topology-required-placement"]
    seg = compile_workload(trainer(), pod(0, notes), replicas=4).pod_group.sub_groups[0]
    assert (seg.constraint.required, seg.constraint.preferred) == ("", "node")


def test_template_annotations_and_spec_replicas() -> None:
    owner = trainer(replicas=8)
    owner["spec"]["template"] = {"metadata": {"annotations": SEGMENTS}}
    grouping = compile_workload(owner, pod(5, notes={}))
    assert [sg.name for sg in grouping.pod_group.sub_groups] == ["segment-0", "segment-1"]
    assert grouping.subgroup == "segment-1"
    assert [sg.name for sg in compile_workload(owner).pod_group.sub_groups] == ["segment-0", "segment-1"]


@pytest.mark.parametrize(
    ("owner_notes", "pod_notes", "warning"),
    [
        pytest.param({}, SEGMENTS, "no kai.scheduler/topology", id="no-topology"),
        pytest.param(
            TOPOLOGY,
            {k: v for k, v in SEGMENTS.items() if k != "kai.scheduler/pod-index-label"},
            "set kai.scheduler/pod-index-label",
            id="no-index-label",
        ),
    ],
)
def test_segments_ignored_with_warning(
    owner_notes: dict[str, str], pod_notes: dict[str, str], warning: str
) -> None:
    grouping = compile_workload(trainer(owner_notes), pod(2, pod_notes), replicas=8)
    assert grouping.pod_group.sub_groups == () and grouping.subgroup is None
    assert grouping.pod_group.min_member == 1
    assert any(warning in w for w in grouping.warnings), grouping.warnings


def test_unsegmented_custom_owner_keeps_min_member_one() -> None:
    grouping = compile_workload(trainer(), pod(0, notes={}), replicas=8)
    assert grouping.pod_group.min_member == 1 and grouping.pod_group.sub_groups == ()


@pytest.mark.parametrize(
    ("replicas", "index", "path"),
    [
        pytest.param(None, 0, "spec.replicas", id="unknown-pod-count"),
        pytest.param(4, 4, "pod.metadata.labels[example.com/rank]", id="index-beyond-count"),
        pytest.param(4, -1, "pod.metadata.labels[example.com/rank]", id="negative-index"),
    ],
)
def test_segment_errors(replicas: int | None, index: int, path: str) -> None:
    with pytest.raises(WorkloadSpecError) as err:
        compile_workload(trainer(), pod(index), replicas=replicas)
    assert err.value.problems[0].path == path


def test_load_owned_pods_builds_the_segmented_gang() -> None:
    loaded = load_kai([trainer(), *[pod(i) for i in (5, 0, 1, 2, 3, 4)]])
    assert [p.subgroup for p in loaded.pods] == ["segment-1"] + ["segment-0"] * 4 + ["segment-1"]
    (gang,) = loaded.gangs
    assert gang.min_member == 6 and gang.size == 6
    leaves = {g.name: [p.name for p in g.pods] for g in gang.root.children}
    assert leaves == {"segment-0": ["t-0", "t-1", "t-2", "t-3"], "segment-1": ["t-4", "t-5"]}
    assert {g.required for g in gang.root.children} == {"rack"} and gang.root.required == "zone"


@pytest.mark.parametrize(
    ("docs", "path"),
    [
        pytest.param(
            [trainer(), pod(0), pod(1, owner="other")], "pods[t-1].metadata.ownerReferences", id="foreign-pod"
        ),
        pytest.param([trainer(), trainer(), pod(0)], "", id="two-workloads"),
        pytest.param([pod(0), pod(1)], "", id="no-workload"),
    ],
)
def test_load_owned_pods_rejects(docs: list[dict[str, Any]], path: str) -> None:
    with pytest.raises(WorkloadSpecError) as err:
        load_owned_pods(docs)
    assert err.value.problems[0].path == path


def test_uid_must_match_when_both_set() -> None:
    stray = pod(1)
    stray["metadata"]["ownerReferences"][0]["uid"] = "u2"
    with pytest.raises(WorkloadSpecError):
        load_owned_pods([trainer(), pod(0), stray])
