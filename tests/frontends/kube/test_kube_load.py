"""The kube front end: linkage, versions, Jobs, the IR it builds (``Semantics.KUBE``)."""

from __future__ import annotations

import pytest
from tests.frontends.kube.docs import RACK, children, composite, gang, job, pod_group, pods, workload

from toposched.frontends.kube import load_kube
from toposched.model import Policy, Semantics, WorkloadSpecError
from toposched.model.node import NODE_LEVEL


def test_job_with_scheduling_is_a_gang_of_its_parallelism() -> None:
    loaded = load_kube(
        [
            job(
                scheduling={
                    "schedulingPolicy": {"gang": {}},
                    "schedulingConstraints": {"topology": [{"key": RACK}]},
                }
            )
        ]
    )
    gang = loaded.gang
    assert (gang.name, gang.semantics, gang.default_policy, gang.topology, gang.kind) == (
        "llm-train",
        Semantics.KUBE,
        Policy.BINPACK,
        "kube.all-nodes",
        "Job",
    )
    (group,) = gang.root.children
    assert gang.root.required is None and gang.root.min_member is None
    assert (group.name, group.required, group.min_member) == ("llm-train", RACK, 8)
    assert [p.name for p in group.pods] == [f"llm-train-{i}" for i in range(8)]
    kinds = [o["kind"] for o in loaded.objects]
    assert kinds == ["Workload", "PodGroup", *["Pod"] * 8]


def test_job_without_scheduling_is_basic() -> None:
    (group,) = load_kube([job(pods=3)]).gang.root.children
    assert group.min_member == 1 and group.required is None


def test_leader_and_workers_are_two_groups_in_document_order() -> None:
    docs = [
        workload(
            "infer",
            [
                {"name": "leader", "schedulingPolicy": gang(1)},
                {"name": "workers", "schedulingPolicy": gang(4)},
            ],
        ),
        pod_group(
            "infer-leader", policy=gang(1), workloadRef={"workloadName": "infer", "templateName": "leader"}
        ),
        pod_group("infer-workers", policy=gang(4), key=RACK, priority=100),
        *pods("infer-workers", 4),
        *pods("infer-leader", 1),
    ]
    gang_ = load_kube(docs).gang
    assert gang_.name == "infer" and gang_.priority == 100
    assert [(g.name, g.required, g.min_member, len(g.pods)) for g in gang_.root.children] == [
        ("infer-leader", None, 1, 1),
        ("infer-workers", RACK, 4, 4),
    ]


def test_composite_pod_group_holds_its_children() -> None:
    docs = [
        composite("infer-0", policy={"gang": {"minGroupCount": 2}}, key=RACK),
        *children("infer-0", ("leader", 1), ("workers", 2)),
        *pods("leader", 1),
        *pods("workers", 2),
    ]
    (top,) = load_kube(docs).gang.root.children
    assert (top.name, top.required, top.min_sub_group) == ("infer-0", RACK, 2)
    assert [c.name for c in top.children] == ["leader", "workers"]


def test_composite_children_come_by_creation_time_then_name() -> None:
    # kube-scheduler takes them so (PodGroupInfo.GetChildGroups), whatever the document order;
    # objects without a creationTimestamp count as created together. Seen side by side with
    # kube-scheduler (seed 7, case 79): in document order the first child took the nodes the
    # second needed whole, and the tree was refused.
    written = children("infer-0", ("w3", 1), ("w1", 1), ("w2", 1))
    docs = [composite("infer-0", key=RACK), *written, *pods("w1", 1), *pods("w2", 1), *pods("w3", 1)]
    (top,) = load_kube(docs).gang.root.children
    assert [c.name for c in top.children] == ["w1", "w2", "w3"]
    stamps = {"w3": "2026-07-01T10:00:00Z", "w1": "2026-07-01T10:00:01Z", "w2": "2026-07-01T10:00:00Z"}
    for child in written:
        child["metadata"]["creationTimestamp"] = stamps[child["metadata"]["name"]]
    (top,) = load_kube(docs).gang.root.children
    assert [c.name for c in top.children] == ["w2", "w3", "w1"]


def test_pods_in_index_order_and_bound_pods_pinned() -> None:
    members = pods("g", 3)
    members[0]["metadata"]["labels"] = {"apps.kubernetes.io/pod-index": "2"}
    members[1]["spec"]["nodeName"] = "n1"
    members[2]["metadata"]["name"] = "g-10"
    (group,) = load_kube([pod_group("g"), *members]).gang.root.children
    assert [p.name for p in group.pods] == ["g-0", "g-1", "g-10"]  # index 2, then names
    assert [p.node for p in group.pods] == [None, "n1", None]


def test_each_key_is_a_topology_of_its_own_and_the_gang_is_on_every_node() -> None:
    """kube-scheduler reads the constraint's label alone: no hostname, no other level."""
    docs = [
        pod_group("g", policy=gang(2), key="example.com/rack"),
        pod_group("h"),
        *pods("g", 2),
        *pods("h", 1),
    ]
    loaded = load_kube(docs)
    every, own = loaded.topologies
    assert (every.name, every.levels) == ("kube.all-nodes", (NODE_LEVEL,))
    assert own.levels == ("example.com/rack",)
    assert own.name.startswith("kube-example-com-rack-")
    assert loaded.gang.topology == "kube.all-nodes"
    assert [(g.name, g.topology) for g in loaded.gang.root.children] == [("g", own.name), ("h", None)]
    assert loaded.warnings == ()


def test_keys_that_read_alike_get_topologies_of_their_own() -> None:
    docs = [pod_group("a", key="x.y/z"), pod_group("b", key="x-y/z"), *pods("a", 1), *pods("b", 1)]
    _, first, second = load_kube(docs).topologies
    assert first.levels == ("x.y/z",) and second.levels == ("x-y/z",)
    assert first.name != second.name


def test_v1alpha1_is_refused_with_what_to_write() -> None:
    old = {
        "apiVersion": "scheduling.k8s.io/v1alpha1",
        "kind": "Workload",
        "metadata": {"name": "w"},
        "spec": {"podGroups": []},
    }
    with pytest.raises(WorkloadSpecError) as info:
        load_kube([old])
    (problem,) = info.value.problems
    assert "removed in Kubernetes 1.36" in problem.message
    assert "scheduling.k8s.io/v1beta1" in problem.hint and "schedulingGroup" in problem.hint
