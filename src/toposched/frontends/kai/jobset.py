"""JobSet: one PodGroup; a parent subgroup per replicatedJob and a leaf per Job replica
(``<replicatedJob>-replica-<i>``). The root needs every replicatedJob (AnyOrder) or one
(InOrder), or ``kai.scheduler/batch-min-member`` of them."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from toposched.frontends.kai import keys
from toposched.frontends.kai.common import (
    KaiGrouping,
    base_name,
    constraint_from,
    count,
    dig,
    fail,
    labels,
    namespace,
    notes_of,
    parse_int,
    queue,
)
from toposched.model.lenient import mapping
from toposched.wire.kai import PodGroup, SubGroup


@dataclass(frozen=True, slots=True)
class _Layout:
    """What the PodGroup of a JobSet takes from the JobSet alone."""

    sub_groups: tuple[SubGroup, ...]
    names: frozenset[str]
    root_min: int


# The PodGrouper runs once per pod, but the layout has a subgroup per Job replica: rebuilt for
# every pod, a JobSet of n single-pod Jobs would take n² steps. The last JobSet's layout is kept;
# the cache holds the JobSet itself, so its identity cannot be reused by another object.
_last: tuple[Mapping[str, Any], int, _Layout] | None = None


def group_jobset(workload: Mapping[str, Any], pod: Mapping[str, Any], *, max_pods: int) -> KaiGrouping:
    """Group one pod of a JobSet, routed by its replicatedjob-name and job-index labels."""
    global _last
    cached = _last
    if cached is not None and cached[0] is workload and cached[1] == max_pods:
        layout = cached[2]
    else:
        layout = _layout(workload, max_pods)
        _last = (workload, max_pods, layout)
    rj_name = labels(pod).get(keys.JOBSET_REPLICATED_JOB)
    job_index = labels(pod).get(keys.JOBSET_JOB_INDEX)
    subgroup = None
    if rj_name is not None and job_index is not None:
        candidate = f"{rj_name}-replica-{job_index}"
        subgroup = candidate if candidate in layout.names else None
    group = PodGroup(
        name=base_name(workload),
        namespace=namespace(workload, pod),
        min_sub_group=layout.root_min,
        queue=queue(workload, pod),
        constraint=constraint_from(notes_of(workload)),
        sub_groups=layout.sub_groups,
    )
    return KaiGrouping(group, subgroup)


def _layout(workload: Mapping[str, Any], max_pods: int) -> _Layout:
    jobs = dig(workload, "spec", "replicatedJobs")
    jobs = jobs if isinstance(jobs, list) else []
    sub_groups: list[SubGroup] = []
    for i, raw in enumerate(jobs):
        rj = mapping(raw)
        where = f"spec.replicatedJobs[{i}]"
        name = str(rj.get("name") or "")
        if not name:
            raise fail(f"{where}.name", "a replicatedJob needs a name", "")
        replicas = count(rj.get("replicas"), f"{where}.replicas", 1, limit=max_pods)
        template = mapping(rj.get("template"))
        notes = notes_of(template)
        raw_min = notes.get(keys.BATCH_MIN_MEMBER)
        if raw_min is not None:
            leaf_min = parse_int(
                raw_min, f"{where}.template.metadata.annotations[{keys.BATCH_MIN_MEMBER}]", "minimum"
            )
        else:
            leaf_min = count(
                dig(template, "spec", "parallelism"), f"{where}.template.spec.parallelism", 1, limit=max_pods
            )
        constraint = constraint_from(notes)
        sub_groups.append(SubGroup(name, min_sub_group=replicas))
        sub_groups += [
            SubGroup(f"{name}-replica-{r}", parent=name, min_member=leaf_min, constraint=constraint)
            for r in range(replicas)
        ]
    root_min = len(jobs)
    if dig(workload, "spec", "startupPolicy", "startupPolicyOrder") == "InOrder":
        root_min = min(1, len(jobs))
    raw = notes_of(workload).get(keys.BATCH_MIN_MEMBER)
    if raw is not None:
        path = f"metadata.annotations[{keys.BATCH_MIN_MEMBER}]"
        wanted = parse_int(raw, path, keys.BATCH_MIN_MEMBER)
        if wanted < 1:
            raise fail(path, f"{keys.BATCH_MIN_MEMBER} must be >= 1, got {wanted}", "")
        root_min = min(wanted, len(jobs))
    return _Layout(tuple(sub_groups), frozenset(sg.name for sg in sub_groups), root_min)
