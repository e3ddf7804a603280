"""Kubernetes batch workloads: the indexed Job (``batch/v1``), the workload most Kueue users
submit, and the JobSet (``jobset.x-k8s.io/v1alpha2``), one Job template per PodSet; and the
Job's own create rule on its name, which every reader of a Job applies."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from toposched.model import Problem
from toposched.model.k8s_content import FieldErrorType, dns1123_label_errors, field_error
from toposched.model.lenient import mapping, text

API_VERSION = "batch/v1"
INT32_MAX = 2**31 - 1
JOBSET_API_VERSION = "jobset.x-k8s.io/v1alpha2"
# The restart policies the API server allows in a Job's pod template (not Always, a pod's default).
JOB_RESTART_POLICIES = ("Never", "OnFailure")


def job_name_problems(job: Mapping[str, Any], path: str) -> list[Problem]:
    """A Job's create rule on its name (``validateNameAllowsCompletions``): an Indexed Job's
    pods are named ``<name>-<index>``, which must be a DNS label for the last index too."""
    spec = mapping(job.get("spec"))
    completions = spec.get("completions")
    if (
        spec.get("completionMode") != "Indexed"
        or not isinstance(completions, int)
        or isinstance(completions, bool)
    ):
        return []
    if not 0 < completions <= INT32_MAX:
        return []
    name = text(mapping(job.get("metadata")).get("name"))
    hostname = f"{name}-{completions - 1}"
    if not dns1123_label_errors(hostname):
        return []
    message = field_error(
        FieldErrorType.INVALID, name, f"will not able to create pod with invalid DNS label: {hostname}"
    )
    hint = f"shorten the name: {hostname!r} must be a DNS label (at most 63 lower-case letters, digits, '-')"
    return [Problem(f"{path}.metadata.name" if path else "metadata.name", message, hint)]


@dataclass(frozen=True, slots=True)
class ReplicatedJob:
    """One ``replicatedJobs`` entry of a JobSet: ``replicas`` Jobs of ``pods`` pods each.
    ``template_annotations`` go on the pods' template (where Kueue reads them),
    ``job_annotations`` on the Job template (where KAI's PodGrouper reads them)."""

    name: str
    pods: int
    pod_spec: Mapping[str, Any]
    template_annotations: Mapping[str, str] | None = None
    replicas: int = 1
    job_annotations: Mapping[str, str] | None = None


def job_object(
    name: str,
    namespace: str,
    pods: int,
    pod_spec: Mapping[str, Any],
    *,
    labels: Mapping[str, str] | None = None,
    annotations: Mapping[str, str] | None = None,
    template_annotations: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """An Indexed Job of ``pods`` pods run at once (parallelism = completions = ``pods``); the
    template's annotations are where Kueue reads a PodSet's topology request, the Job's own
    where KAI reads its constraint."""
    return {
        "apiVersion": API_VERSION,
        "kind": "Job",
        "metadata": _metadata(name, namespace, labels, annotations),
        "spec": _job_spec(pods, pod_spec, template_annotations),
    }


def jobset_object(
    name: str,
    namespace: str,
    jobs: Sequence[ReplicatedJob],
    *,
    labels: Mapping[str, str] | None = None,
    annotations: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """A JobSet running ``jobs`` in order, each an Indexed Job template as ``job_object`` writes it."""
    return {
        "apiVersion": JOBSET_API_VERSION,
        "kind": "JobSet",
        "metadata": _metadata(name, namespace, labels, annotations),
        "spec": {"replicatedJobs": [_replicated_job(job) for job in jobs]},
    }


def _replicated_job(job: ReplicatedJob) -> dict[str, Any]:
    template: dict[str, Any] = {"spec": _job_spec(job.pods, job.pod_spec, job.template_annotations)}
    if job.job_annotations:
        template = {"metadata": {"annotations": dict(job.job_annotations)}, **template}
    return {"name": job.name, "replicas": job.replicas, "template": template}


def _metadata(
    name: str, namespace: str, labels: Mapping[str, str] | None, annotations: Mapping[str, str] | None
) -> dict[str, Any]:
    """Name and namespace, and labels and annotations when there are any (no empty maps)."""
    metadata: dict[str, Any] = {"name": name, "namespace": namespace}
    if labels:
        metadata["labels"] = dict(labels)
    if annotations:
        metadata["annotations"] = dict(annotations)
    return metadata


def _job_spec(
    pods: int, pod_spec: Mapping[str, Any], template_annotations: Mapping[str, str] | None
) -> dict[str, Any]:
    spec = dict(pod_spec)
    # The API server requires Never or OnFailure: the input's choice is kept when it is one of
    # them; otherwise (none written, or a pod's Always) Never, what `kubectl create job` writes.
    if spec.get("restartPolicy") not in JOB_RESTART_POLICIES:
        spec["restartPolicy"] = "Never"
    template: dict[str, Any] = {"spec": spec}
    if template_annotations:  # none written is none: no `annotations: {}`
        template = {"metadata": {"annotations": dict(template_annotations)}, **template}
    return {"parallelism": pods, "completions": pods, "completionMode": "Indexed", "template": template}
