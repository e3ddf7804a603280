"""LeaderWorkerSet: one PodGroup per replica group (``...-group-<index>``), subgroups ``leader``
and ``workers``, and segments either from LWS's own ``subGroupPolicy`` or from the seed's
``kai.scheduler/segment-size`` annotation. Worker indices are normalised by the leader count."""

from __future__ import annotations

from collections.abc import Mapping
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
from toposched.frontends.kai.segments import check_segment_count, segment_constraint, segment_of
from toposched.model.lenient import mapping
from toposched.wire.kai import PodGroup, SubGroup, TopologyConstraint

LEADERS = 1  # an LWS replica group has exactly one leader, worker-index 0


def group_lws(workload: Mapping[str, Any], pod: Mapping[str, Any], *, max_pods: int) -> KaiGrouping:
    """Group one pod of a LeaderWorkerSet replica group."""
    template = mapping(dig(workload, "spec", "leaderWorkerTemplate"))
    pod_notes = notes_of(pod)
    size = count(
        pod_notes.get(keys.LWS_SIZE, template.get("size")),
        "spec.leaderWorkerTemplate.size",
        1,
        limit=max_pods,
    )
    index = _worker_index(pod)
    name = base_name(workload)
    group_index = labels(pod).get(keys.LWS_GROUP_INDEX)
    if group_index is not None:
        name = f"{name}-group-{group_index}"
    leader_only = (
        dig(workload, "spec", "startupPolicy") == "LeaderReady"
        and index == 0
        and not dig(pod, "spec", "nodeName")
    )
    warnings: list[str] = []
    if leader_only:
        # LeaderReady: workers are created once the leader runs, so ask for the leader alone.
        sub_groups: list[SubGroup] = [SubGroup("leader", min_member=1)]
        subgroup: str | None = "leader"
        minimum = 1
    else:
        minimum = size
        sub_groups, subgroup = _subgroups(workload, template, pod, size, index, warnings)
    group = PodGroup(
        name=name,
        namespace=namespace(workload, pod),
        min_member=minimum,
        queue=queue(workload, pod),
        constraint=constraint_from(notes_of(workload)),
        sub_groups=tuple(sub_groups),
    )
    return KaiGrouping(group, subgroup, tuple(warnings))


def _worker_index(pod: Mapping[str, Any]) -> int | None:
    raw = labels(pod).get(keys.LWS_WORKER_INDEX)
    if raw is None:
        return None
    path = f"pod.metadata.labels[{keys.LWS_WORKER_INDEX}]"
    index = parse_int(raw, path, f"index label {keys.LWS_WORKER_INDEX}")
    if index < 0:
        raise fail(path, f"invalid index label {keys.LWS_WORKER_INDEX}={raw}. It must be bigger than 0", "")
    return index


def _subgroups(
    workload: Mapping[str, Any],
    template: Mapping[str, Any],
    pod: Mapping[str, Any],
    size: int,
    index: int | None,
    warnings: list[str],
) -> tuple[list[SubGroup], str | None]:
    workers = size - LEADERS
    is_leader = index == 0
    # A pod without a worker index is not the leader.
    worker = None if index is None or is_leader else index - LEADERS
    worker_notes = mapping(dig(template, "workerTemplate", "metadata", "annotations"))
    root_notes = notes_of(workload)
    topology = str(
        notes_of(pod).get(keys.TOPOLOGY)
        or worker_notes.get(keys.TOPOLOGY)
        or root_notes.get(keys.TOPOLOGY)
        or ""
    )
    constraint = segment_constraint(notes_of(pod), worker_notes, topology)
    policy = mapping(template.get("subGroupPolicy"))
    seg_size, from_policy = _segment_size(policy, root_notes, worker_notes)
    if seg_size is not None and not from_policy and not topology:
        warnings.append(f"{keys.SEGMENT_SIZE} ignored: no {keys.TOPOLOGY} on the worker template or the LWS")
        seg_size = None
    if seg_size is None or workers <= 0:
        plain = [SubGroup("leader", min_member=1)]
        if workers > 0:
            plain.append(SubGroup("workers", min_member=workers))
        return plain, "leader" if is_leader or workers <= 0 else "workers"
    if seg_size < 1 or seg_size > size:
        raise fail(
            "spec.leaderWorkerTemplate.subGroupPolicy.subGroupSize",
            f"segment size {seg_size} must be between 1 and the group size {size}",
            "",
        )
    n = check_segment_count(workers, seg_size, "spec.leaderWorkerTemplate")
    mins = [min(seg_size, workers - i * seg_size) for i in range(n)]
    seg = None if worker is None else segment_of(worker, seg_size)
    if not from_policy:
        return _seed_layout(mins, constraint, seg, is_leader)
    if policy.get("subGroupPolicyType") == "LeaderExcluded":
        excluded = [SubGroup("leader", min_member=1)] + [
            SubGroup(f"segment-{i}", min_member=m, constraint=constraint) for i, m in enumerate(mins)
        ]
        return excluded, "leader" if is_leader else None if seg is None else f"segment-{seg}"
    # LeaderWorker: the leader joins the first segment, which becomes a parent of both.
    together = [SubGroup("segment-0", min_sub_group=2, constraint=constraint)]
    together += [
        SubGroup(f"segment-{i}", min_member=m, constraint=constraint) for i, m in enumerate(mins) if i
    ]
    together += [
        SubGroup("leader", parent="segment-0", min_member=1),
        SubGroup("workers", parent="segment-0", min_member=mins[0]),
    ]
    if is_leader:
        return together, "leader"
    return together, "workers" if seg in (None, 0) else f"segment-{seg}"


def _seed_layout(
    mins: list[int], constraint: TopologyConstraint, seg: int | None, is_leader: bool
) -> tuple[list[SubGroup], str | None]:
    """Seed 002: segments under the replica type's subgroup; the leader stays outside them."""
    groups = [SubGroup("leader", min_member=1), SubGroup("workers", min_sub_group=len(mins))]
    groups += [
        SubGroup(f"workers-{i}", parent="workers", min_member=m, constraint=constraint)
        for i, m in enumerate(mins)
    ]
    if is_leader:
        return groups, "leader"
    return groups, None if seg is None else f"workers-{seg}"


def _segment_size(
    policy: Mapping[str, Any], root_notes: Mapping[str, Any], worker_notes: Mapping[str, Any]
) -> tuple[int | None, bool]:
    """subGroupPolicy.subGroupSize, else the annotation on the LWS, else on the worker template."""
    if policy.get("subGroupSize") is not None:
        path = "spec.leaderWorkerTemplate.subGroupPolicy.subGroupSize"
        return parse_int(policy["subGroupSize"], path, "subGroupSize"), True
    for where, notes in (
        ("metadata", root_notes),
        ("spec.leaderWorkerTemplate.workerTemplate.metadata", worker_notes),
    ):
        if keys.SEGMENT_SIZE in notes:
            path = f"{where}.annotations[{keys.SEGMENT_SIZE}]"
            return parse_int(notes[keys.SEGMENT_SIZE], path, f"segment size {keys.SEGMENT_SIZE}"), False
    return None, False
