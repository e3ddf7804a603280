"""Small builders for Kueue workload documents (plain dicts, as YAML would give them)."""

from __future__ import annotations

from typing import Any

import pytest

from toposched.frontends.kueue import compile_workload
from toposched.frontends.loading import load_workload
from toposched.model import Gang, Problem, Topology, WorkloadSpecError

ZONE = "topology.kubernetes.io/zone"
BLOCK = "cloud.provider.com/topology-block"
RACK = "cloud.provider.com/topology-rack"
HOST = "kubernetes.io/hostname"

# The bundled sample cluster's topology:  zone ─ block ─ rack ─ hostname
SAMPLE = Topology.create("sample", [ZONE, BLOCK, RACK, HOST], aliases={"rack": RACK, "block": BLOCK})

# The topology the KEP's examples use:  topology-block ─ topology-rack ─ topology-host
KEP_HOST = "cloud.provider.com/topology-host"
KEP = Topology.create("kep", [BLOCK, RACK, KEP_HOST])

# The KEP's multi-level example:  datacenter ─ aizone ─ block ─ rack ─ hostname
DATACENTER = Topology.create(
    "datacenter",
    [
        "cloud.provider.com/datacenter",
        "cloud.provider.com/aizone",
        "cloud.provider.com/block",
        "cloud.provider.com/rack",
        HOST,
    ],
)

REQUIRED = "kueue.x-k8s.io/podset-required-topology"
PREFERRED = "kueue.x-k8s.io/podset-preferred-topology"
UNCONSTRAINED = "kueue.x-k8s.io/podset-unconstrained-topology"
SLICE_REQUIRED = "kueue.x-k8s.io/podset-slice-required-topology"
SLICE_SIZE = "kueue.x-k8s.io/podset-slice-size"
LAYERS = "kueue.x-k8s.io/podset-slice-required-topology-constraints"
GROUP = "kueue.x-k8s.io/podset-group-name"
OFFSET = "kueue.x-k8s.io/pod-index-offset"

GPU = {"cpu": "4", "nvidia.com/gpu": "4"}


def template(
    annotations: dict[str, Any] | None = None, requests: dict[str, Any] | None = None
) -> dict[str, Any]:
    """A pod template with one container."""
    container: dict[str, Any] = {"name": "main", "image": "busybox"}
    if requests is not None:
        container["resources"] = {"requests": requests}
    result: dict[str, Any] = {"spec": {"containers": [container]}}
    if annotations is not None:
        result["metadata"] = {"annotations": annotations}
    return result


def job(
    annotations: dict[str, Any] | None = None,
    *,
    parallelism: Any = 4,
    name: str | None = "train",
    requests: dict[str, Any] | None = None,
) -> dict[str, Any]:
    metadata = {"name": name} if name is not None else {}
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": metadata,
        "spec": {"parallelism": parallelism, "template": template(annotations, requests or GPU)},
    }


def replicated_job(
    name: str, annotations: dict[str, Any] | None = None, *, replicas: Any = 1, parallelism: Any = 1
) -> dict[str, Any]:
    return {
        "name": name,
        "replicas": replicas,
        "template": {"spec": {"parallelism": parallelism, "template": template(annotations, GPU)}},
    }


def jobset(*jobs: dict[str, Any], name: str = "js") -> dict[str, Any]:
    return {
        "apiVersion": "jobset.x-k8s.io/v1alpha2",
        "kind": "JobSet",
        "metadata": {"name": name},
        "spec": {"replicatedJobs": list(jobs)},
    }


def lws(
    leader: dict[str, Any] | None,
    worker: dict[str, Any] | None = None,
    *,
    replicas: Any = 1,
    size: Any = 4,
    name: str = "lws",
    with_leader: bool = True,
) -> dict[str, Any]:
    lwt: dict[str, Any] = {"size": size, "workerTemplate": template(worker, GPU)}
    if with_leader:
        lwt["leaderTemplate"] = template(leader, {"cpu": "1"})
    return {
        "apiVersion": "leaderworkerset.x-k8s.io/v1",
        "kind": "LeaderWorkerSet",
        "metadata": {"name": name},
        "spec": {"replicas": replicas, "leaderWorkerTemplate": lwt},
    }


def mpijob(
    launcher: dict[str, Any] | None = None,
    worker: dict[str, Any] | None = None,
    *,
    workers: int = 3,
    launcher_as_worker: bool = True,
) -> dict[str, Any]:
    return {
        "apiVersion": "kubeflow.org/v2beta1",
        "kind": "MPIJob",
        "metadata": {"name": "pi"},
        "spec": {
            "runLauncherAsWorker": launcher_as_worker,
            "mpiReplicaSpecs": {
                "Launcher": {"replicas": 1, "template": template(launcher, GPU)},
                "Worker": {"replicas": workers, "template": template(worker, GPU)},
            },
        },
    }


def pytorchjob(annotations: dict[str, Any] | None = None, *, workers: int = 3) -> dict[str, Any]:
    return {
        "apiVersion": "kubeflow.org/v1",
        "kind": "PyTorchJob",
        "metadata": {"name": "ddp", "namespace": "ml"},
        "spec": {
            "pytorchReplicaSpecs": {
                "Master": {"replicas": 1, "template": template(annotations, GPU)},
                "Worker": {"replicas": workers, "template": template(annotations, GPU)},
            }
        },
    }


def pod(
    name: str,
    *,
    group: str | None = "g",
    total: Any = None,
    annotations: dict[str, Any] | None = None,
    requests: dict[str, Any] | None = None,
    queue: str | None = None,
) -> dict[str, Any]:
    anns = dict(annotations or {})
    if total is not None:
        anns["kueue.x-k8s.io/pod-group-total-count"] = total
    labels = {"kueue.x-k8s.io/pod-group-name": group} if group is not None else {}
    if queue is not None:
        labels["kueue.x-k8s.io/queue-name"] = queue
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "batch", "labels": labels, "annotations": anns},
        "spec": {"containers": [{"name": "c", "resources": {"requests": requests or {"cpu": "1"}}}]},
    }


def pod_list(*pods: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "List", "items": list(pods)}


def compile_one(doc: dict[str, Any], topology: Topology | None = SAMPLE) -> Gang:
    return compile_workload([doc], topology)


def problems_of(
    source: dict[str, Any] | list[dict[str, Any]] | str, topology: Topology | None = SAMPLE
) -> tuple[Problem, ...]:
    """Every problem the front end reports for a document, a document list or YAML text."""
    with pytest.raises(WorkloadSpecError) as info:
        if isinstance(source, str):
            load_workload(source, topology, source="job.yaml")
        else:
            compile_workload(source if isinstance(source, list) else [source], topology)
    return info.value.problems


def ann(path: str, key: str) -> str:
    """The field path of one annotation under a template path."""
    return f'{path}.metadata.annotations["{key}"]'
