"""The pod limit per gang: every front end refuses a workload asking for more pods than
``CompileContext.max_pods`` with a WorkloadSpecError naming the count's field, the limit and how to
raise it, before any pod is built (a 10^23-pod Job would otherwise exhaust memory)."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from toposched.frontends.osmo import parse_pool
from toposched.frontends.registry import CompileContext, PoolEntry, default_registry
from toposched.intake.parse import parse_documents
from toposched.model import MAX_PODS_PER_GANG, WorkloadSpecError

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
HUGE = 10**23


def example(path: str) -> list[Any]:
    return parse_documents((EXAMPLES / path).read_text(encoding="utf-8"), source=path)


def context(max_pods: int = MAX_PODS_PER_GANG) -> CompileContext:
    return CompileContext(max_pods=max_pods)


def refused(documents: list[Any], ctx: CompileContext) -> WorkloadSpecError:
    with pytest.raises(WorkloadSpecError) as caught:
        default_registry().compile(documents, ctx)
    return caught.value


def set_at(doc: Any, path: tuple[str | int, ...], value: object) -> list[Any]:
    changed = copy.deepcopy(doc)
    target = changed
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = value
    return [changed]


KUEUE_JOB = example("kueue/job-rack.yaml")[0]
KUEUE_JOBSET = example("kueue/jobset-rack-slices.yaml")[0]
KUEUE_LWS = example("kueue/lws-group.yaml")[0]
KAI_TFJOB = example("kai/tfjob-segments.yaml")[0]
GROVE = example("grove/llama-70b-h100.yaml")[0]
GROVE_TOPOLOGIES = example("grove/topologies.yaml")  # the ClusterTopology the PodCliqueSet names


@pytest.mark.parametrize(
    ("documents", "field", "pods"),
    [
        (set_at(KUEUE_JOB, ("spec", "parallelism"), 10**6), "spec.parallelism", 10**6),
        (set_at(KUEUE_JOB, ("spec", "parallelism"), HUGE), "spec.parallelism", HUGE),
        (
            set_at(KUEUE_JOBSET, ("spec", "replicatedJobs", 1, "replicas"), HUGE),
            "spec.replicatedJobs[1].replicas",
            HUGE,
        ),
        (set_at(KUEUE_LWS, ("spec", "replicas"), HUGE), "spec.replicas", HUGE),
        (
            set_at(KAI_TFJOB, ("spec", "tfReplicaSpecs", "Worker", "replicas"), 200_000),
            "spec.tfReplicaSpecs.Worker.replicas",
            200_000,
        ),
        ([*set_at(GROVE, ("spec", "replicas"), HUGE), *GROVE_TOPOLOGIES], "spec.replicas", HUGE),
        (
            [*set_at(GROVE, ("spec", "template", "cliques", 1, "spec", "replicas"), HUGE), *GROVE_TOPOLOGIES],
            "spec.template.cliques[1].spec.replicas",
            HUGE,
        ),
    ],
    ids=[
        "kueue-job-1e6",
        "kueue-job-1e23",
        "kueue-jobset",
        "kueue-lws",
        "kai-tfjob",
        "grove-pcs",
        "grove-clique",
    ],
)
def test_a_count_beyond_the_limit_is_refused_naming_its_field(
    documents: list[Any], field: str, pods: int
) -> None:
    error = refused(documents, context())
    problem = next(p for p in error.problems if "limit" in p.message)
    assert problem.path == field
    assert f"asks for {pods} pods; the limit is {MAX_PODS_PER_GANG} pods per gang" in problem.message
    assert "--max-pods" in problem.hint


@pytest.mark.parametrize(
    ("documents", "field"),
    [
        # 60_000 x 2 pods: each count is within the limit, their product is not
        (
            set_at(KUEUE_JOBSET, ("spec", "replicatedJobs", 1, "replicas"), 60_000),
            "spec.replicatedJobs[1].replicas",
        ),
        ([*set_at(GROVE, ("spec", "replicas"), 60_000), *GROVE_TOPOLOGIES], "spec.replicas"),
    ],
    ids=["kueue-jobset-replicas-x-parallelism", "grove-replicas-x-clique-replicas"],
)
def test_counts_multiplying_past_the_limit_are_refused(documents: list[Any], field: str) -> None:
    error = refused(documents, context(max_pods=100_000))
    problem = next(p for p in error.problems if "limit" in p.message)
    assert problem.path == field
    assert "pods; the limit is 100000 pods per gang" in problem.message


def test_kai_jobset_replicas_times_parallelism_is_bounded() -> None:
    jobset = {
        "apiVersion": "jobset.x-k8s.io/v1alpha2",
        "kind": "JobSet",
        "metadata": {"name": "big", "annotations": {"kai.scheduler/topology": "t"}},
        "spec": {
            "replicatedJobs": [
                {"name": "w", "replicas": 50_000, "template": {"spec": {"parallelism": 50_000}}}
            ]
        },
    }
    error = refused([jobset], context())
    assert error.problems[0].path == "spec.replicatedJobs[0].replicas"
    assert "2500000000 pods" in error.problems[0].message


def test_kai_owned_pods_beyond_the_limit_are_refused() -> None:
    owner = {"apiVersion": "example.com/v1", "kind": "Trainer", "metadata": {"name": "t"}}
    labels = {"kai.scheduler/queue": "q"}
    pods = [
        {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"p{i}", "labels": labels}} for i in range(3)
    ]
    error = refused([owner, *pods], context(max_pods=2))
    assert "the limit is 2 pods per gang" in error.problems[0].message


def test_osmo_tasks_beyond_the_limit_are_refused() -> None:
    pool = parse_pool(example("osmo/1-single-nvl72-rack.pool.yaml")[0])
    workflow = example("osmo/1-single-nvl72-rack.workflow.yaml")
    ctx = CompileContext(pools={pool.name: PoolEntry(pool)}, max_pods=1)
    error = refused(workflow, ctx)
    assert "the limit is 1 pods per gang" in error.problems[0].message


@pytest.mark.parametrize(
    "path",
    [
        "kueue/job-rack.yaml",
        "kueue/jobset-rack-slices.yaml",
        "kai/tfjob-segments.yaml",
        "grove/llama-70b-h100.yaml",
    ],
)
def test_the_limit_is_set_by_the_compile_context(path: str) -> None:
    documents = example(path) + (GROVE_TOPOLOGIES if path.startswith("grove") else [])
    registry = default_registry()
    pods = registry.compile(documents, context()).gang.size
    assert registry.compile(documents, context(pods)).gang.size == pods
    error = refused(documents, context(pods - 1))
    assert f"the limit is {pods - 1} pods per gang" in str(error)


@pytest.mark.timeout(60)  # grouping pod by pod took n² steps: about ten minutes for these 20,000 Jobs
def test_a_kai_jobset_of_many_jobs_compiles_in_linear_time() -> None:
    jobset = {
        "apiVersion": "jobset.x-k8s.io/v1alpha2",
        "kind": "JobSet",
        "metadata": {"name": "wide", "annotations": {"kai.scheduler/topology": "t"}},
        "spec": {
            "replicatedJobs": [
                {
                    "name": "w",
                    "replicas": 20_000,
                    "template": {
                        "spec": {"parallelism": 1, "template": {"spec": {"containers": [{"name": "c"}]}}}
                    },
                }
            ]
        },
    }
    gang = default_registry().compile([jobset], context()).gang
    assert gang.size == 20_000
    assert len(gang.root.children[0].children) == 20_000  # a subgroup per Job replica


def test_completions_beyond_the_limit_are_not_pods() -> None:
    job = set_at(KUEUE_JOB, ("spec", "completions"), 10**6)
    assert default_registry().compile(job, context()).gang.size == KUEUE_JOB["spec"]["parallelism"]
