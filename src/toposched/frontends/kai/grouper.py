"""The PodGrouper: pick the plugin by the top owner's kind and build the PodGroup for one pod.
Holds the default grouper and the batch Job plugin; other kinds live in their own modules."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Protocol

from toposched.frontends.kai import keys
from toposched.frontends.kai.aliases import resolve_group
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
from toposched.frontends.kai.grove import group_podgang
from toposched.frontends.kai.jobset import group_jobset
from toposched.frontends.kai.kubeflow import KINDS as KUBEFLOW_KINDS
from toposched.frontends.kai.kubeflow import group_kubeflow
from toposched.frontends.kai.lws import group_lws
from toposched.frontends.kai.ray import group_ray
from toposched.frontends.kai.segments import (
    build_segments,
    check_segment_count,
    pod_index,
    read_segment_config,
    segment_of,
)
from toposched.model import MAX_PODS_PER_GANG, Problem, Topology, WorkloadSpecError
from toposched.model.lenient import mapping
from toposched.wire.kai import PodGroup, SubGroup


class Plugin(Protocol):
    """Groups one pod of its top owner; counts the owner asks for are bounded by ``max_pods``."""

    def __call__(
        self, workload: Mapping[str, Any], pod: Mapping[str, Any], *, max_pods: int
    ) -> KaiGrouping: ...


def compile_workload(
    workload: Mapping[str, Any],
    pod: Mapping[str, Any] | None = None,
    *,
    topologies: Iterable[Topology] = (),
    replicas: int | None = None,
    max_pods: int = MAX_PODS_PER_GANG,
) -> KaiGrouping:
    """Group ``pod`` of ``workload`` (its top owner) as KAI's PodGrouper does. Level aliases of
    ``topologies`` are resolved in the result. ``replicas`` is the pod count of an owner of a kind
    toposched does not know (used when it is segmented; default: its ``spec.replicas``).
    Counts the owner asks for beyond ``max_pods`` (the pod limit per gang) are errors.
    Raises ``WorkloadSpecError`` when the grouper fails."""
    if not isinstance(workload, Mapping):
        raise WorkloadSpecError([Problem("", "a workload must be a mapping", "pass the parsed object")])
    plugin = _plugin(str(workload.get("kind") or ""), str(workload.get("apiVersion") or ""))
    if plugin is group_default:
        grouping = group_default(workload, mapping(pod), replicas=replicas, max_pods=max_pods)
    else:
        grouping = plugin(workload, mapping(pod), max_pods=max_pods)
    catalog = tuple(topologies)
    if not catalog:
        return grouping
    return KaiGrouping(resolve_group(grouping.pod_group, catalog), grouping.subgroup, grouping.warnings)


def _plugin(kind: str, api_version: str) -> Plugin:
    group = api_version.split("/")[0] if "/" in api_version else ""
    if kind == "Job" and group == "batch":
        return group_batch_job
    if kind == "JobSet":
        return group_jobset
    if kind in KUBEFLOW_KINDS:
        return group_kubeflow
    if kind == "LeaderWorkerSet":
        return group_lws
    if kind in ("RayCluster", "RayJob", "RayService"):
        return group_ray
    if kind == "PodGang":
        return group_podgang
    return group_default


def group_default(
    workload: Mapping[str, Any], pod: Mapping[str, Any], *, replicas: int | None = None, max_pods: int
) -> KaiGrouping:
    """Any other owner: ``pg-<name>-<uid>``, minMember 1, constraint from the owner's annotations.

    Segments (seed 002, unsupported kinds): ``kai.scheduler/segment-size`` on the pod (the pod
    template of a custom kind reaches the scheduler only through its pods) or on the owner's
    ``spec.template``, with ``kai.scheduler/pod-index-label`` naming the index label. Then the
    PodGroup is a gang of all ``replicas`` pods (default: the owner's ``spec.replicas``) cut into
    top-level subgroups ``segment-<i>``. Without a topology or an index label the segment
    annotations are ignored with a warning."""
    notes = notes_of(workload)
    warnings: list[str] = []
    template_notes = mapping(dig(workload, "spec", "template", "metadata", "annotations"))
    config = None
    if keys.SEGMENT_SIZE in notes_of(pod) or keys.SEGMENT_SIZE in template_notes:
        config = read_segment_config(
            notes_of(pod),
            template_notes,
            notes,
            default_index_label=None,
            where="spec.template",
            warnings=warnings,
        )
    minimum = 1
    sub_groups: tuple[SubGroup, ...] = ()
    subgroup = None
    if config is not None and config.index_label is not None:
        minimum = _custom_replicas(workload, replicas, max_pods)
        check_segment_count(minimum, config.size, "spec.template")
        sub_groups = tuple(
            SubGroup(sg.name, min_member=sg.min_member, constraint=sg.constraint)
            for sg in build_segments("segment", minimum, config, minimum)
        )
        if pod:
            subgroup = f"segment-{segment_of(_indexed(pod, config.index_label, minimum), config.size)}"
    group = PodGroup(
        name=base_name(workload),
        namespace=namespace(workload, pod),
        min_member=max(minimum, 1),
        queue=queue(workload, pod),
        constraint=constraint_from(notes),
        sub_groups=sub_groups,
    )
    return KaiGrouping(group, subgroup, tuple(warnings))


def _custom_replicas(workload: Mapping[str, Any], replicas: int | None, max_pods: int) -> int:
    # A custom kind has no known replica field: the caller's pod count, else spec.replicas.
    if replicas is not None:
        return replicas
    raw = dig(workload, "spec", "replicas")
    if raw is None:
        raise fail(
            "spec.replicas",
            "the pod count of a segmented custom workload is unknown",
            "set spec.replicas on the workload, or give the workload together with its Pods",
        )
    return count(raw, "spec.replicas", 1, limit=max_pods)


def _indexed(pod: Mapping[str, Any], label: str, replicas: int) -> int:
    index = pod_index(labels(pod), label)
    if index >= replicas:
        raise fail(
            f"pod.metadata.labels[{label}]",
            f"index {index} is beyond the workload's {replicas} pods",
            "indices run from 0 to the pod count - 1",
        )
    return index


def group_batch_job(workload: Mapping[str, Any], pod: Mapping[str, Any], *, max_pods: int) -> KaiGrouping:
    """One PodGroup per Job. minMember: ``kai.scheduler/batch-min-member``, else the parallelism
    when the Job has topology annotations (a topology-constrained workload is a gang), else 1.
    Segments (indexed Jobs) become top-level subgroups ``segment-<i>``."""
    notes = notes_of(workload)
    constraint = constraint_from(notes)
    parallelism = count(dig(workload, "spec", "parallelism"), "spec.parallelism", 1, limit=max_pods)
    raw_min = notes.get(keys.BATCH_MIN_MEMBER)
    if raw_min is not None:
        minimum = parse_int(raw_min, f"metadata.annotations[{keys.BATCH_MIN_MEMBER}]", keys.BATCH_MIN_MEMBER)
    elif constraint.topology:
        minimum = parallelism
    else:
        minimum = 1
    warnings: list[str] = []
    template_notes = mapping(dig(workload, "spec", "template", "metadata", "annotations"))
    config = None
    if keys.SEGMENT_SIZE in template_notes:
        config = read_segment_config(
            notes_of(pod),
            template_notes,
            notes,
            default_index_label=keys.JOB_COMPLETION_INDEX,
            where="spec.template",
            warnings=warnings,
        )
    sub_groups: tuple[SubGroup, ...] = ()
    subgroup = None
    if config is not None and parallelism > 0:
        check_segment_count(parallelism, config.size, "spec.template")
        sub_groups = tuple(
            SubGroup(sg.name, min_member=sg.min_member, constraint=sg.constraint)
            for sg in build_segments("segment", parallelism, config, minimum)
        )
        if pod and config.index_label:
            subgroup = f"segment-{segment_of(pod_index(labels(pod), config.index_label), config.size)}"
    group = PodGroup(
        name=base_name(workload),
        namespace=namespace(workload, pod),
        min_member=minimum,
        queue=queue(workload, pod),
        constraint=constraint,
        sub_groups=sub_groups,
    )
    return KaiGrouping(group, subgroup, tuple(warnings))
