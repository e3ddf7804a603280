"""Each workload kind compiles to the expected IR: names, counts, ranks, levels, slices, groups."""

from __future__ import annotations

from toposched.frontends.kueue import compile_workload, podset_infos, podset_names
from toposched.frontends.loading import load_workload
from toposched.model import (
    Gang,
    Group,
    Mode,
    Queue,
    QueueKind,
    Role,
    Semantics,
    SliceLayer,
    Toleration,
    TolerationOperator,
)

from .helpers import (
    BLOCK,
    GROUP,
    HOST,
    LAYERS,
    PREFERRED,
    RACK,
    REQUIRED,
    SAMPLE,
    SLICE_REQUIRED,
    SLICE_SIZE,
    UNCONSTRAINED,
    ZONE,
    compile_one,
    job,
    jobset,
    lws,
    mpijob,
    pod,
    pod_list,
    pytorchjob,
    replicated_job,
)


def pods_of(group: Group) -> list[tuple[str, int]]:
    return [(p.name, p.index) for p in group.pods]


def leaf(gang: Gang, name: str) -> Group:
    return next(g for g in gang.leaves() if g.name == name)


# --- Job --------------------------------------------------------------------------------------


def test_job_required_rack() -> None:
    gang = compile_one(job({REQUIRED: RACK}, parallelism=3))
    assert (gang.name, gang.namespace, gang.kind, gang.policy, gang.topology) == (
        "train",
        "default",
        "Job",
        None,
        None,
    )
    assert gang.root.name == "train" and gang.root.mode is Mode.UNCONSTRAINED
    (main,) = gang.root.children
    assert (main.name, main.required, main.preferred, main.slices) == ("main", RACK, None, ())
    assert pods_of(main) == [("train-0", 0), ("train-1", 1), ("train-2", 2)]
    assert dict(main.pods[0].requests) == {"cpu": 4000, "nvidia.com/gpu": 4}


def test_job_count_is_parallelism_capped_by_completions() -> None:
    doc = job({PREFERRED: BLOCK}, parallelism=8)
    doc["spec"]["completions"] = 5
    (main,) = compile_one(doc).leaves()
    assert len(main.pods) == 5 and main.preferred == BLOCK


def test_job_without_annotations_is_unconstrained() -> None:
    (main,) = compile_one(job(None)).leaves()
    assert main.mode is Mode.UNCONSTRAINED and main.slices == ()


def test_job_explicit_unconstrained_is_unconstrained() -> None:
    (main,) = compile_one(job({UNCONSTRAINED: "true"})).leaves()
    assert main.mode is Mode.UNCONSTRAINED


def test_job_slice_only_request_is_unconstrained_with_slices() -> None:
    (main,) = compile_one(job({SLICE_REQUIRED: HOST, SLICE_SIZE: "2"})).leaves()
    assert main.mode is Mode.UNCONSTRAINED and main.slices == (SliceLayer(HOST, 2),)


def test_job_single_slice_layer() -> None:
    (main,) = compile_one(job({REQUIRED: BLOCK, SLICE_REQUIRED: RACK, SLICE_SIZE: "2"})).leaves()
    assert (main.required, main.slices) == (BLOCK, (SliceLayer(RACK, 2),))


def test_job_multi_layer_sizes_as_strings_or_ints() -> None:
    layers = f'[{{"topology": "{BLOCK}", "size": "8"}}, {{"topology": "{RACK}", "size": 4}}, {{"topology": "{HOST}", "size": 2}}]'
    (main,) = compile_one(job({REQUIRED: ZONE, LAYERS: layers}, parallelism=16)).leaves()
    assert main.slices == (SliceLayer(BLOCK, 8), SliceLayer(RACK, 4), SliceLayer(HOST, 2))


def test_job_aliases_resolve_to_label_keys() -> None:
    (main,) = compile_one(job({REQUIRED: "block", SLICE_REQUIRED: "rack", SLICE_SIZE: 2})).leaves()
    assert (main.required, main.slices) == (BLOCK, (SliceLayer(RACK, 2),))


def test_job_pod_spec_facts() -> None:
    doc = job({REQUIRED: RACK}, parallelism=1)
    spec = doc["spec"]["template"]["spec"]
    spec["nodeSelector"] = {"nvidia.com/gpu.product": "NVIDIA-GB200"}
    spec["tolerations"] = [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]
    spec["initContainers"] = [{"name": "init", "resources": {"requests": {"cpu": "16"}}}]
    (main,) = compile_one(doc).leaves()
    (only,) = main.pods
    assert dict(only.node_selector) == {"nvidia.com/gpu.product": "NVIDIA-GB200"}
    assert only.tolerations[0].key == "nvidia.com/gpu"
    assert only.tolerations[0].operator is TolerationOperator.EXISTS
    assert isinstance(only.tolerations[0], Toleration)
    assert only.requests["cpu"] == 16000  # the init container's peak beats the app container's 4


def test_no_topology_keeps_label_keys_unchecked_against_levels() -> None:
    (main,) = compile_workload([job({REQUIRED: "example.com/pod-rack"})]).leaves()
    assert main.required == "example.com/pod-rack"


# --- JobSet -----------------------------------------------------------------------------------


def test_jobset_podsets_counts_names_and_ranks() -> None:
    gang = compile_one(
        jobset(
            replicated_job("driver", {REQUIRED: BLOCK}),
            replicated_job("workers", {REQUIRED: BLOCK, SLICE_REQUIRED: RACK}, replicas=2, parallelism=3),
            name="pre",
        )
    )
    assert gang.kind == "JobSet" and podset_names(gang) == ("driver", "workers")
    workers = leaf(gang, "workers")
    assert pods_of(workers) == [
        ("pre-workers-0-0", 0),
        ("pre-workers-0-1", 1),
        ("pre-workers-0-2", 2),
        ("pre-workers-1-0", 3),
        ("pre-workers-1-1", 4),
        ("pre-workers-1-2", 5),
    ]
    # slice size defaults to the Job's parallelism
    assert workers.slices == (SliceLayer(RACK, 3),)
    assert pods_of(leaf(gang, "driver")) == [("pre-driver-0-0", 0)]


def test_jobset_explicit_slice_size_wins_over_default() -> None:
    gang = compile_one(
        jobset(
            replicated_job(
                "w", {REQUIRED: BLOCK, SLICE_REQUIRED: HOST, SLICE_SIZE: "1"}, replicas=2, parallelism=2
            )
        )
    )
    assert leaf(gang, "w").slices == (SliceLayer(HOST, 1),)


# --- LeaderWorkerSet --------------------------------------------------------------------------


def test_lws_group_per_replica() -> None:
    anns = {GROUP: "lws-group", REQUIRED: RACK}
    gang = compile_one(lws(anns, anns, replicas=2, size=3))
    assert [c.name for c in gang.root.children] == ["lws-group-0", "lws-group-1"]
    first = gang.root.children[0]
    assert (first.required, first.preferred, first.slices) == (RACK, None, ())
    leader, workers = first.children
    assert (leader.name, leader.mode, pods_of(leader)) == ("leader-0", Mode.UNCONSTRAINED, [("lws-0", 0)])
    assert (workers.name, workers.mode) == ("worker-0", Mode.UNCONSTRAINED)
    assert pods_of(workers) == [("lws-0-1", 0), ("lws-0-2", 1)]
    assert pods_of(gang.root.children[1].children[1]) == [("lws-1-1", 0), ("lws-1-2", 1)]


def test_lws_group_single_replica_keeps_plain_names() -> None:
    anns = {GROUP: "g", PREFERRED: BLOCK}
    gang = compile_one(lws(anns, anns, size=2))
    (group,) = gang.root.children
    assert (group.name, group.preferred, [c.name for c in group.children]) == (
        "g",
        BLOCK,
        ["leader", "worker"],
    )
    # One pod each: the front end, not the engine, says which is the leader.
    assert [c.role for c in group.children] == [Role.LEADER, Role.WORKERS]
    assert gang.semantics is Semantics.KUEUE
    infos = podset_infos(gang)
    assert [(i.name, i.count, i.mode, i.level, i.group) for i in infos] == [
        ("leader", 1, Mode.PREFERRED, BLOCK, "g"),
        ("worker", 1, Mode.PREFERRED, BLOCK, "g"),
    ]


def test_lws_without_group_offsets_workers_by_one() -> None:
    gang = compile_one(lws({REQUIRED: HOST}, {REQUIRED: RACK}, size=4))
    assert [c.is_leaf for c in gang.root.children] == [True, True]
    assert (leaf(gang, "leader").required, leaf(gang, "worker").required) == (HOST, RACK)
    assert pods_of(leaf(gang, "worker")) == [("lws-0-1", 0), ("lws-0-2", 1), ("lws-0-3", 2)]


def test_lws_without_leader_template_is_one_main_podset() -> None:
    gang = compile_one(lws(None, {REQUIRED: RACK}, size=3, replicas=2, with_leader=False))
    assert podset_names(gang) == ("main-0", "main-1")
    assert pods_of(leaf(gang, "main-1")) == [("lws-1", 0), ("lws-1-1", 1), ("lws-1-2", 2)]


def test_lws_of_size_one_has_no_worker_podset() -> None:
    assert podset_names(compile_one(lws(None, None, size=1))) == ("leader",)


# --- MPIJob -----------------------------------------------------------------------------------


def test_mpijob_launcher_as_worker_ranks_start_at_zero() -> None:
    gang = compile_one(mpijob({PREFERRED: RACK}, {PREFERRED: RACK}, workers=3))
    assert podset_names(gang) == ("launcher", "worker")
    assert pods_of(leaf(gang, "launcher")) == [("pi-launcher", 0)]
    assert pods_of(leaf(gang, "worker")) == [("pi-worker-0", 0), ("pi-worker-1", 1), ("pi-worker-2", 2)]


def test_mpijob_group_manages_the_offset() -> None:
    anns = {GROUP: "mpi", REQUIRED: RACK}
    gang = compile_one(mpijob(anns, anns, workers=2))
    (group,) = gang.root.children
    assert group.name == "mpi" and [c.name for c in group.children] == ["launcher", "worker"]
    assert pods_of(group.children[1]) == [("pi-worker-0", 0), ("pi-worker-1", 1)]


def test_mpijob_without_launcher_as_worker() -> None:
    gang = compile_one(mpijob(None, None, workers=2, launcher_as_worker=False))
    assert pods_of(leaf(gang, "worker")) == [("pi-worker-0", 0), ("pi-worker-1", 1)]


def test_mpijob_group_without_launcher_as_worker_falls_back_to_pod_order() -> None:
    # Workers are numbered 0..N-1 here, so the group's offset of 1 gives ranks -1..N-2, which
    # Kueue's ungater treats as inconsistent (greedy); toposched keeps the pod order.
    anns = {GROUP: "mpi", REQUIRED: RACK}
    gang = compile_one(mpijob(anns, anns, workers=3, launcher_as_worker=False))
    assert [p.index for p in gang.root.children[0].children[1].pods] == [0, 1, 2]


# --- PyTorchJob -------------------------------------------------------------------------------


def test_pytorchjob_master_and_workers() -> None:
    gang = compile_one(pytorchjob({PREFERRED: RACK}, workers=2))
    assert (gang.kind, gang.namespace) == ("PyTorchJob", "ml")
    assert pods_of(leaf(gang, "master")) == [("ddp-master-0", 0)]
    assert pods_of(leaf(gang, "worker")) == [("ddp-worker-0", 0), ("ddp-worker-1", 1)]
    assert leaf(gang, "worker").preferred == RACK


# --- Pod groups -------------------------------------------------------------------------------


def test_pod_group_splits_pods_by_shape() -> None:
    anns = {REQUIRED: RACK}
    pods = [
        pod("w-0", total=4, annotations=anns, requests={"nvidia.com/gpu": "4"}),
        pod("coord", total=4, annotations=anns),
        pod("w-1", total="4", annotations=anns, requests={"nvidia.com/gpu": "4"}),
        pod("w-2", total=4, annotations=anns, requests={"nvidia.com/gpu": "4"}),
    ]
    gang = compile_workload([pod_list(*pods)], SAMPLE)
    assert (gang.name, gang.namespace, gang.kind) == ("g", "batch", "Pod")
    assert podset_names(gang) == ("main", "main-1")
    assert pods_of(leaf(gang, "main")) == [("w-0", 0), ("w-1", 1), ("w-2", 2)]
    assert pods_of(leaf(gang, "main-1")) == [("coord", 0)]
    assert leaf(gang, "main-1").required == RACK


def test_pod_group_from_several_yaml_documents() -> None:
    text = "\n---\n".join(
        f"""
apiVersion: v1
kind: Pod
metadata:
  name: p-{i}
  labels: {{kueue.x-k8s.io/pod-group-name: grp}}
  annotations: {{kueue.x-k8s.io/pod-group-total-count: "2"}}
spec:
  containers: [{{name: c, resources: {{requests: {{cpu: 500m}}}}}}]
"""
        for i in range(2)
    )
    gang = load_workload(text, SAMPLE)
    assert gang.name == "grp" and pods_of(leaf(gang, "main")) == [("p-0", 0), ("p-1", 1)]
    assert leaf(gang, "main").pods[0].requests["cpu"] == 500


def test_single_pod_without_group_is_its_own_workload() -> None:
    gang = compile_one(pod("solo", group=None, annotations={PREFERRED: HOST}))
    assert gang.name == "solo" and pods_of(leaf(gang, "main")) == [("solo", 0)]


def test_lws_of_size_one_in_a_group_is_a_plain_leader_podset() -> None:
    anns = {GROUP: "g", REQUIRED: RACK}
    gang = compile_one(lws(anns, anns, size=1))
    (leader,) = gang.root.children
    assert (leader.name, leader.required, leader.is_leaf, len(leader.pods)) == ("leader", RACK, True, 1)


def test_a_list_holding_one_workload() -> None:
    gang = compile_workload([pod_list(job({REQUIRED: RACK}, parallelism=2))], SAMPLE)
    assert podset_names(gang) == ("main",) and gang.size == 2


def test_the_queue_name_label_is_the_gang_s_local_queue() -> None:
    labelled = job()
    labelled["metadata"]["labels"] = {"kueue.x-k8s.io/queue-name": "team-a"}
    assert compile_one(labelled).queue == Queue("team-a", QueueKind.KUEUE)
    assert compile_one(job()).queue is None


def test_a_pod_group_s_queue_is_its_pods_label() -> None:
    pods = pod_list(pod("a", total=2, queue="team-a"), pod("b", total=2, queue="team-a"))
    assert compile_one(pods).queue == Queue("team-a", QueueKind.KUEUE)
