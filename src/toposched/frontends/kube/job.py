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
from typing import Any

from toposched.frontends.kube.rules import Problems, at, check_constraints, check_policy
from toposched.model import PodBudget, Problem
from toposched.model.lenient import mapping, text
from toposched.wire.batch import API_VERSION as BATCH_API
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


def job_documents(
    job: Mapping[str, Any], path: str, problems: Problems, budget: PodBudget
) -> list[dict[str, Any]]:
    """The Workload, PodGroup and pods the Job controller would create for ``job``."""
    metadata, spec = mapping(job.get("metadata")), mapping(job.get("spec"))
    name = text(metadata.get("name"))
    namespace = text(metadata.get("namespace")) or "default"
    if not name:
        problems.append(Problem(at(path, "metadata.name"), "is required", "name the Job"))
    pods = _pod_count(spec, at(path, "spec"), problems, budget)
    template = mapping(mapping(spec.get("template")).get("spec"))
    existing = text(mapping(template.get("schedulingGroup")).get("podGroupName"))
    objects: list[dict[str, Any]] = []
    group = existing or name
    if not existing:
        settings = _settings(name, spec, pods, at(path, "spec.scheduling"), problems)
        workload = Workload(name, namespace, (PodGroupTemplate(TEMPLATE, settings.min_count, settings.key),))
        objects += [
            workload.to_object(DEFAULT_API_VERSION),
            PodGroup(settings, namespace, workload=name, template=TEMPLATE).to_object(DEFAULT_API_VERSION),
        ]
    indexed = spec.get("completionMode") == "Indexed"
    for index in range(pods):
        pod_spec = {**template, "schedulingGroup": scheduling_group(group)}
        labels = {JOB_COMPLETION_INDEX: str(index)} if indexed else None
        annotations = {JOB_COMPLETION_INDEX: str(index)} if indexed else None
        objects.append(
            pod_object(f"{name}-{index}", namespace, labels=labels, annotations=annotations, spec=pod_spec)
        )
    return objects


def _settings(
    name: str, spec: Mapping[str, Any], pods: int, path: str, problems: Problems
) -> PodGroupTemplate:
    scheduling = spec.get("scheduling")
    if scheduling is None:
        return PodGroupTemplate(name)
    if not isinstance(scheduling, Mapping):
        problems.append(
            Problem(path, "must be a mapping", "write schedulingPolicy: and schedulingConstraints: under it")
        )
        return PodGroupTemplate(name)
    policy = scheduling.get("schedulingPolicy")
    gang = mapping(policy).get("gang")
    if isinstance(gang, Mapping) and gang.get("minCount") is None:
        policy = {**mapping(policy), "gang": {**gang, "minCount": pods}}  # defaulted from parallelism
    if policy is not None:
        check_policy(policy, "minCount", at(path, "schedulingPolicy"), problems)
    check_constraints(scheduling.get("schedulingConstraints"), at(path, "schedulingConstraints"), problems)
    minimum = read_min(policy, "minCount")
    if minimum is not None and minimum > pods:
        problems.append(
            Problem(
                at(path, "schedulingPolicy.gang.minCount"),
                f"is {minimum} but the Job runs {pods} pods at once: the gang would never be scheduled",
                "lower minCount or raise parallelism",
            )
        )
    return PodGroupTemplate(name, minimum, read_key(scheduling))


def _pod_count(spec: Mapping[str, Any], path: str, problems: Problems, budget: PodBudget) -> int:
    """Pods running at once: parallelism (default 1), at most completions when set."""
    count = 1
    for field in ("parallelism", "completions"):
        value = spec.get(field)
        if value is None:
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
