"""A Job with ``spec.scheduling`` (KEP-5547, 1.37) as the objects the Job controller creates: one
Workload with one pod group template, one PodGroup named after the Job, and its pods linked by
``spec.schedulingGroup``.

``spec.scheduling`` absent means ``basic``; a gang's ``minCount`` defaults to the Job's
parallelism. A pod template that already names a PodGroup (``schedulingGroup``) gets no
objects of its own: the controller then only creates the pods, which join that PodGroup.
Names are the Job's (the controller adds a hash suffix, left out of this dry run).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from toposched.frontends.kube.rules import (
    Problems,
    at,
    check_metadata,
    job_scheduling_problems,
)
from toposched.model import PodBudget, Problem
from toposched.model.k8s_content import dns1123_subdomain_errors
from toposched.model.lenient import mapping, text
from toposched.wire.batch import API_VERSION as BATCH_API
from toposched.wire.batch import job_name_problems
from toposched.wire.core import pod_object
from toposched.wire.scheduling import (
    DEFAULT_API_VERSION,
    JOB_COMPLETION_INDEX,
    PodGroup,
    PodGroupTemplate,
    Workload,
    read_key,
    read_min,
    scheduling_group,
)

TEMPLATE = "job"  # the Job-owned Workload's one template


KUEUE_PREFIX = "kueue.x-k8s.io/"  # a Job queued by Kueue is Kueue's, whatever else it sets


def is_scheduling_job(doc: Mapping[str, Any]) -> bool:
    """A batch/v1 Job that sets ``spec.scheduling`` and carries no Kueue label or annotation."""
    spec = mapping(doc.get("spec"))
    if doc.get("kind") != "Job" or text(doc.get("apiVersion")) != BATCH_API or spec.get("scheduling") is None:
        return False
    metadata = [mapping(doc.get("metadata")), mapping(mapping(spec.get("template")).get("metadata"))]
    keys = [k for m in metadata for part in ("labels", "annotations") for k in mapping(m.get(part))]
    return not any(str(k).startswith(KUEUE_PREFIX) for k in keys)


@dataclass(frozen=True, slots=True)
class JobPods:
    """The pods the Job controller would create: the pod template's pod under the names
    ``<job>-<index>``; an Indexed Job's carry their index as label and annotation. Kept as the one
    pod and the names (a Job may run 100,000 pods); ``objects`` writes each out."""

    base: dict[str, Any]
    names: tuple[str, ...]
    indexed: bool

    def objects(self) -> list[dict[str, Any]]:
        base = self.base
        version, kind, spec, namespace = (
            base["apiVersion"],
            base["kind"],
            base["spec"],
            base["metadata"]["namespace"],
        )
        if not self.indexed:
            return [
                {
                    "apiVersion": version,
                    "kind": kind,
                    "metadata": {"name": n, "namespace": namespace},
                    "spec": spec,
                }
                for n in self.names
            ]
        out = []
        for index, name in enumerate(self.names):
            labels = {JOB_COMPLETION_INDEX: str(index)}
            metadata = {"name": name, "namespace": namespace, "labels": labels, "annotations": labels}
            out.append({"apiVersion": version, "kind": kind, "metadata": metadata, "spec": spec})
        return out


def job_documents(
    job: Mapping[str, Any], path: str, problems: Problems, budget: PodBudget
) -> tuple[list[dict[str, Any]], JobPods]:
    """The Workload and PodGroup, then the pods, the Job controller would create for ``job``."""
    metadata, spec = mapping(job.get("metadata")), mapping(job.get("spec"))
    check_metadata(job, path, problems)
    problems += job_name_problems(job, path)
    name = text(metadata.get("name"))
    namespace = text(metadata.get("namespace")) or "default"
    pods = _pod_count(spec, at(path, "spec"), problems, budget)
    template = mapping(mapping(spec.get("template")).get("spec"))
    existing = text(mapping(template.get("schedulingGroup")).get("podGroupName"))
    objects: list[dict[str, Any]] = []
    group = existing or name
    if not existing:
        settings = _settings(name, spec, pods, path, problems)
        workload = Workload(name, namespace, (PodGroupTemplate(TEMPLATE, settings.min_count, settings.key),))
        if name and not dns1123_subdomain_errors(name):  # else the name's problem is said once, above
            objects += [
                workload.to_object(DEFAULT_API_VERSION),
                PodGroup(settings, namespace, workload=name, template=TEMPLATE).to_object(
                    DEFAULT_API_VERSION
                ),
            ]
    base = pod_object(name, namespace, spec={**template, "schedulingGroup": scheduling_group(group)})
    names = tuple(f"{name}-{index}" for index in range(pods))
    return objects, JobPods(base, names, spec.get("completionMode") == "Indexed")


def _settings(
    name: str, spec: Mapping[str, Any], pods: int, path: str, problems: Problems
) -> PodGroupTemplate:
    """The PodGroup's settings from ``spec.scheduling`` (checked as the API server checks a
    Job's); a gang's minCount defaults to the pods the Job runs at once."""
    found = job_scheduling_problems(spec, path)
    problems += found
    scheduling = spec.get("scheduling")
    if found or not isinstance(scheduling, Mapping):
        return PodGroupTemplate(name)
    policy = scheduling.get("schedulingPolicy")
    gang = mapping(policy).get("gang")
    minimum = read_min(policy, "minCount")
    if isinstance(gang, Mapping) and minimum is None:
        minimum = pods  # defaulted from parallelism
    return PodGroupTemplate(
        name, minimum, read_key(scheduling), disruption_all="all" in mapping(scheduling.get("disruptionMode"))
    )


def _pod_count(spec: Mapping[str, Any], path: str, problems: Problems, budget: PodBudget) -> int:
    """Pods running at once: parallelism (default 1), at most completions when set."""
    count = 1
    for field in ("parallelism", "completions"):
        value = spec.get(field)
        if value is None:
            continue
        if isinstance(value, int) and not isinstance(value, bool) and value == 0:
            # the API server takes it (the Job runs no pods for now); toposched has nothing to place
            problems.append(
                Problem(at(path, field), "is 0: the Job has no pods to place", "set it to 1 or more")
            )
            continue
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            problems.append(
                Problem(at(path, field), f"must be an integer >= 1, got {value!r}", "write e.g. 8")
            )
            continue
        count = value if field == "parallelism" else min(count, value)
    problem = budget.take(at(path, "parallelism"), count)
    if problem is not None:
        problems.append(problem)
        return 0
    return count
