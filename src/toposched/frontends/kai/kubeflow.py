"""Kubeflow training jobs (PyTorchJob, TFJob, MPIJob, JAXJob, XGBoostJob): one subgroup per
replica type, segments inside a replica type whose pod template asks for them."""

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
from toposched.frontends.kai.segments import (
    SegmentConfig,
    build_segments,
    check_segment_count,
    pod_index,
    read_segment_config,
    segment_of,
)
from toposched.model.lenient import mapping
from toposched.wire.kai import PodGroup, SubGroup

# kind -> (replica-spec field, replica types in the order their subgroups are listed)
KINDS: Mapping[str, tuple[str, tuple[str, ...]]] = {
    "PyTorchJob": ("pytorchReplicaSpecs", ("Master", "Worker")),
    "TFJob": ("tfReplicaSpecs", ("Chief", "Master", "PS", "Worker", "Evaluator")),
    "MPIJob": ("mpiReplicaSpecs", ("Launcher", "Worker")),
    "JAXJob": ("jaxReplicaSpecs", ("Worker",)),
    "XGBoostJob": ("xgbReplicaSpecs", ("Master", "Worker")),
}
WORKER = "Worker"


def group_kubeflow(workload: Mapping[str, Any], pod: Mapping[str, Any], *, max_pods: int) -> KaiGrouping:
    """One PodGroup; minMember = schedulingPolicy.minAvailable, else elasticPolicy.minReplicas,
    else the replica sum. The Worker type gets what the minimum leaves after the other types."""
    kind = str(workload.get("kind"))
    field, order = KINDS[kind]
    specs = mapping(dig(workload, "spec", field))
    types = [t for t in order if t in specs] + [t for t in specs if t not in order]
    replicas = {
        t: count(dig(specs, t, "replicas"), f"spec.{field}.{t}.replicas", 1, limit=max_pods) for t in types
    }
    minimum = _minimum(workload, sum(replicas.values()))
    others = sum(n for t, n in replicas.items() if t != WORKER)
    pod_type = str(labels(pod).get(keys.KUBEFLOW_REPLICA_TYPE) or "").lower()
    warnings: list[str] = []
    sub_groups: list[SubGroup] = []
    segments: list[SubGroup] = []
    configs: dict[str, SegmentConfig] = {}
    for t in types:
        name = t.lower()
        mandatory = max(0, minimum - others) if t == WORKER else replicas[t]
        config = _segment_config(workload, specs, t, pod if pod_type == name else {}, field, warnings)
        if config is None or replicas[t] == 0:
            sub_groups.append(SubGroup(name, min_member=mandatory))
            continue
        n = check_segment_count(replicas[t], config.size, f"spec.{field}.{t}")
        configs[name] = config
        sub_groups.append(SubGroup(name, min_sub_group=n))
        segments.extend(build_segments(name, replicas[t], config, mandatory))
    subgroup = _pod_subgroup(pod, pod_type, {sg.name for sg in sub_groups}, configs, replicas)
    group = PodGroup(
        name=base_name(workload),
        namespace=namespace(workload, pod),
        min_member=minimum,
        queue=queue(workload, pod),
        constraint=constraint_from(notes_of(workload)),
        sub_groups=tuple(sub_groups + segments),
    )
    return KaiGrouping(group, subgroup, tuple(warnings))


def _minimum(workload: Mapping[str, Any], total: int) -> int:
    for path in (("runPolicy", "schedulingPolicy", "minAvailable"), ("elasticPolicy", "minReplicas")):
        value = dig(workload, "spec", *path)
        if value is not None:
            return parse_int(value, "spec." + ".".join(path), "minimum")
    return total


def _segment_config(
    workload: Mapping[str, Any],
    specs: Mapping[str, Any],
    replica_type: str,
    pod: Mapping[str, Any],
    field: str,
    warnings: list[str],
) -> SegmentConfig | None:
    # The template decides whether a replica type is segmented; the pod may override values.
    template_notes = mapping(dig(specs, replica_type, "template", "metadata", "annotations"))
    if keys.SEGMENT_SIZE not in template_notes:
        return None
    return read_segment_config(
        notes_of(pod),
        template_notes,
        notes_of(workload),
        default_index_label=keys.KUBEFLOW_REPLICA_INDEX,
        where=f"spec.{field}.{replica_type}.template",
        warnings=warnings,
    )


def _pod_subgroup(
    pod: Mapping[str, Any],
    pod_type: str,
    names: set[str],
    configs: Mapping[str, SegmentConfig],
    replicas: Mapping[str, int],
) -> str | None:
    if pod_type not in names:
        return None
    config = configs.get(pod_type)
    if config is None or config.index_label is None:
        return pod_type
    index = pod_index(labels(pod), config.index_label)
    total = next(n for t, n in replicas.items() if t.lower() == pod_type)
    if index >= total:
        raise fail(
            f"pod.metadata.labels[{config.index_label}]",
            f"index {index} is beyond the {total} {pod_type} replicas",
            "check the replica count",
        )
    return f"{pod_type}-{segment_of(index, config.size)}"
