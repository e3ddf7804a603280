"""PodGrouper behaviour beyond the conformance cases: the seed's TFJob, the other Kubeflow
kinds, gangs from topology annotations, ignored segment annotations, and ``to_gang``."""

from __future__ import annotations

from typing import Any

import pytest

from toposched.frontends.kai import compile_workload, to_gang
from toposched.frontends.kai.segments import read_segment_config
from toposched.model import Mode, PodSpec, Policy, Semantics, Topology, WorkloadSpecError


def tfjob(worker_notes: dict[str, str], root_notes: dict[str, str] | None = None) -> dict[str, Any]:
    return {
        "apiVersion": "kubeflow.org/v1",
        "kind": "TFJob",
        "metadata": {"name": "distributed-training", "uid": "u1", "annotations": root_notes or {}},
        "spec": {
            "tfReplicaSpecs": {
                "Chief": {"replicas": 1},
                "PS": {"replicas": 2},
                "Worker": {"replicas": 16, "template": {"metadata": {"annotations": worker_notes}}},
            }
        },
    }


SEED_ROOT = {
    "kai.scheduler/topology": "cluster-topology",
    "kai.scheduler/topology-required-placement": "zone",
}
SEED_WORKER = {"kai.scheduler/segment-size": "4", "kai.scheduler/segment-topology-required-placement": "rack"}


def worker(index: int) -> dict[str, Any]:
    labels = {
        "training.kubeflow.org/replica-type": "worker",
        "training.kubeflow.org/replica-index": str(index),
    }
    return {"metadata": {"name": f"w-{index}", "labels": labels}}


def test_seed_tfjob_four_segments_on_rack_in_one_zone() -> None:
    grouping = compile_workload(tfjob(SEED_WORKER, SEED_ROOT), worker(13))
    group = grouping.pod_group
    assert group.min_member == 19
    assert (group.constraint.topology, group.constraint.required) == ("cluster-topology", "zone")
    assert [sg.name for sg in group.sub_groups] == [
        "chief",
        "ps",
        "worker",
        "worker-0",
        "worker-1",
        "worker-2",
        "worker-3",
    ]
    parent = group.subgroup("worker")
    assert parent is not None and parent.min_sub_group == 4
    for i in range(4):
        seg = group.subgroup(f"worker-{i}")
        assert seg is not None and seg.parent == "worker" and seg.min_member == 4
        assert (seg.constraint.topology, seg.constraint.required) == ("cluster-topology", "rack")
    assert grouping.subgroup == "worker-3"
    assert grouping.warnings == ()


def test_template_topology_wins_over_root() -> None:
    notes = {**SEED_WORKER, "kai.scheduler/topology": "fabric"}
    group = compile_workload(tfjob(notes, SEED_ROOT), worker(0)).pod_group
    seg = group.subgroup("worker-0")
    assert seg is not None and seg.constraint.topology == "fabric"


def test_segments_without_topology_are_ignored_with_warning() -> None:
    grouping = compile_workload(tfjob(SEED_WORKER), worker(5))
    assert [sg.name for sg in grouping.pod_group.sub_groups] == ["chief", "ps", "worker"]
    assert grouping.subgroup == "worker"
    assert any("kai.scheduler/segment-size ignored" in w for w in grouping.warnings)


def test_segments_without_index_label_are_ignored_with_warning() -> None:
    warnings: list[str] = []
    config = read_segment_config(
        {},
        {"kai.scheduler/segment-size": "2"},
        {"kai.scheduler/topology": "t"},
        default_index_label=None,
        where="spec.template",
        warnings=warnings,
    )
    assert config is None
    assert "kai.scheduler/pod-index-label" in warnings[0]


def test_pod_index_label_annotation_overrides_default() -> None:
    notes = {**SEED_WORKER, "kai.scheduler/pod-index-label": "example.com/rank"}
    pod = {"metadata": {"labels": {"training.kubeflow.org/replica-type": "worker", "example.com/rank": "9"}}}
    assert compile_workload(tfjob(notes, SEED_ROOT), pod).subgroup == "worker-2"


@pytest.mark.parametrize(
    ("kind", "field", "types", "names"),
    [
        pytest.param(
            "MPIJob", "mpiReplicaSpecs", {"Launcher": 1, "Worker": 4}, ["launcher", "worker"], id="mpijob"
        ),
        pytest.param("JAXJob", "jaxReplicaSpecs", {"Worker": 4}, ["worker"], id="jaxjob"),
        pytest.param(
            "XGBoostJob", "xgbReplicaSpecs", {"Worker": 3, "Master": 1}, ["master", "worker"], id="xgboostjob"
        ),
    ],
)
def test_other_kubeflow_kinds(kind: str, field: str, types: dict[str, int], names: list[str]) -> None:
    job = {
        "apiVersion": "kubeflow.org/v1",
        "kind": kind,
        "metadata": {"name": "j", "uid": "1"},
        "spec": {field: {t: {"replicas": n} for t, n in types.items()}},
    }
    group = compile_workload(job, {"metadata": {}}).pod_group
    assert [sg.name for sg in group.sub_groups] == names
    assert group.min_member == sum(types.values())


def seed_job(extra: dict[str, str] | None = None) -> dict[str, Any]:
    notes = {
        "kai.scheduler/topology": "cluster-topology",
        "kai.scheduler/topology-required-placement": "topology.kubernetes.io/zone",
        "kai.scheduler/topology-preferred-placement": "topology.kubernetes.io/rack",
        **(extra or {}),
    }
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "distributed-training", "uid": "7", "annotations": notes},
        "spec": {"parallelism": 3, "completions": 3},
    }


def test_job_with_topology_is_a_gang_of_all_pods() -> None:
    group = compile_workload(seed_job(), {"metadata": {}}).pod_group
    assert group.min_member == 3
    assert group.constraint.preferred == "topology.kubernetes.io/rack"


def test_batch_min_member_wins_over_the_gang_default() -> None:
    assert compile_workload(seed_job({"kai.scheduler/batch-min-member": "2"})).pod_group.min_member == 2


def test_topology_name_alone_is_no_constraint() -> None:
    owner = {
        "apiVersion": "v1",
        "kind": "Thing",
        "metadata": {"name": "x", "uid": "1", "annotations": {"kai.scheduler/topology": "t"}},
    }
    assert compile_workload(owner).pod_group.constraint.is_empty


def test_aliases_resolved_with_topologies() -> None:
    topology = Topology.create(
        "cluster-topology",
        ["topology.kubernetes.io/zone", "example.com/rack"],
        {"zone": "topology.kubernetes.io/zone"},
    )
    job = seed_job({"kai.scheduler/topology-required-placement": "zone"})
    group = compile_workload(job, topologies=[topology]).pod_group
    assert group.constraint.required == "topology.kubernetes.io/zone"


def test_lws_annotation_segments_follow_the_seed_layout() -> None:
    lws = {
        "apiVersion": "leaderworkerset.x-k8s.io/v1",
        "kind": "LeaderWorkerSet",
        "metadata": {"name": "l", "uid": "1", "annotations": {"kai.scheduler/topology": "t"}},
        "spec": {
            "leaderWorkerTemplate": {
                "size": 5,
                "workerTemplate": {
                    "metadata": {
                        "annotations": {
                            "kai.scheduler/segment-size": "3",
                            "kai.scheduler/segment-topology-required-placement": "rack",
                        }
                    }
                },
            }
        },
    }
    pod = {"metadata": {"labels": {"leaderworkerset.sigs.k8s.io/worker-index": "4"}}}
    grouping = compile_workload(lws, pod)
    subs = {sg.name: (sg.parent, sg.min_member, sg.min_sub_group) for sg in grouping.pod_group.sub_groups}
    assert subs == {
        "leader": (None, 1, None),
        "workers": (None, None, 2),
        "workers-0": ("workers", 3, None),
        "workers-1": ("workers", 1, None),
    }
    assert grouping.subgroup == "workers-1"  # index 4 - 1 leader = 3 -> segment 1


def test_to_gang_builds_the_group_tree_in_index_order() -> None:
    grouping = compile_workload(
        tfjob(
            {"kai.scheduler/segment-size": "2", "kai.scheduler/segment-topology-required-placement": "rack"},
            SEED_ROOT,
        ),
        worker(0),
    )
    pods: list[tuple[str | None, PodSpec]] = [("chief", PodSpec("chief-0", 0))]
    pods += [(f"worker-{i // 2}", PodSpec(f"w-{i}", i)) for i in reversed(range(16))]
    pods += [("ps", PodSpec(f"ps-{i}", i)) for i in range(2)]
    gang = to_gang(grouping, pods)
    assert gang.default_policy is Policy.BINPACK and gang.policy is None  # the caller may choose another
    assert gang.topology == "cluster-topology"
    assert gang.semantics is Semantics.HIERARCHY  # KAI's rules, whatever the ordering
    assert gang.root.mode is Mode.REQUIRED and gang.root.required == "zone"
    assert [c.name for c in gang.root.children] == ["chief", "ps", "worker"]
    workers = gang.root.children[2]
    assert len(workers.children) == 8 and workers.children[0].required == "rack"
    assert [p.index for p in workers.children[1].pods] == [2, 3]
    assert gang.size == 19


def test_to_gang_rejects_pods_outside_leaves() -> None:
    grouping = compile_workload(tfjob({}, SEED_ROOT), worker(0))
    with pytest.raises(WorkloadSpecError) as caught:
        to_gang(grouping, [("nope", PodSpec("p", 0)), (None, PodSpec("q", 1))])
    assert len(caught.value.problems) == 2


def test_to_gang_without_subgroups_puts_pods_on_root() -> None:
    grouping = compile_workload(seed_job())
    gang = to_gang(grouping, [(None, PodSpec(f"p{i}", i)) for i in (2, 0, 1)])
    assert gang.root.is_leaf and [p.index for p in gang.root.pods] == [0, 1, 2]
    assert (gang.root.required, gang.root.preferred) == (
        "topology.kubernetes.io/zone",
        "topology.kubernetes.io/rack",
    )
    assert gang.min_member == 3
