"""Segments: a replica type cut into equal consecutive blocks of pods, each its own subgroup
with its own constraint (seed 002). Arithmetic plus the annotation lookup order."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from toposched.frontends.kai import keys
from toposched.frontends.kai.common import fail, parse_int
from toposched.wire.kai import NO_CONSTRAINT, SubGroup, TopologyConstraint


def segment_count(replicas: int, size: int) -> int:
    """ceil(replicas / size): the last segment may be short."""
    return -(-replicas // size) if replicas > 0 else 0


def segment_of(index: int, size: int) -> int:
    return index // size


def segment_min_members(replicas: int, size: int, mandatory: int) -> list[int]:
    """minMember per segment: its pod count while its first pod is within the first
    ``mandatory`` pods of the replica type, 0 for elastic segments beyond that."""
    out = []
    for i in range(segment_count(replicas, size)):
        first = i * size
        out.append(min(size, replicas - first) if first < mandatory else 0)
    return out


def check_segment_count(replicas: int, size: int, path: str) -> int:
    n = segment_count(replicas, size)
    if n > keys.MAX_SEGMENTS:
        raise fail(
            path,
            f"{n} segments ({replicas} pods / size {size}) is greater than max allowed segmentation "
            f"({keys.MAX_SEGMENTS})",
            "use a larger kai.scheduler/segment-size",
        )
    return n


@dataclass(frozen=True, slots=True)
class SegmentConfig:
    """Segment annotations of one replica type after the lookup order was applied."""

    size: int
    constraint: TopologyConstraint
    index_label: str | None


def read_segment_config(
    pod_notes: Mapping[str, Any],
    template_notes: Mapping[str, Any],
    root_notes: Mapping[str, Any],
    *,
    default_index_label: str | None,
    where: str,
    warnings: list[str],
) -> SegmentConfig | None:
    """Size: pod, then template. Topology name: pod, template, workload root (the template wins
    over the root). Levels: pod, then template. Index label: ``kai.scheduler/pod-index-label``
    on pod or template, else the kind's default. Returns None when the replica type is not
    segmented, or when the seed says to ignore the annotations (no topology / no index label)."""
    raw = pod_notes.get(keys.SEGMENT_SIZE)
    source = "pod"
    if raw is None:
        raw, source = template_notes.get(keys.SEGMENT_SIZE), where
    if raw is None:
        return None
    size = parse_int(raw, f"{source}.annotations[{keys.SEGMENT_SIZE}]", f"segment size {keys.SEGMENT_SIZE}")
    if size <= 0:
        raise fail(
            f"{source}.annotations[{keys.SEGMENT_SIZE}]",
            f"invalid segment size {keys.SEGMENT_SIZE}={raw!r}: must be > 0",
            "use a positive pod count",
        )
    topology = str(
        pod_notes.get(keys.TOPOLOGY)
        or template_notes.get(keys.TOPOLOGY)
        or root_notes.get(keys.TOPOLOGY)
        or ""
    )
    if not topology:
        warnings.append(
            f"{where}: {keys.SEGMENT_SIZE} ignored: no {keys.TOPOLOGY} on the pod template or the workload"
        )
        return None
    index_label = str(
        pod_notes.get(keys.POD_INDEX_LABEL)
        or template_notes.get(keys.POD_INDEX_LABEL)
        or default_index_label
        or ""
    )
    if not index_label:
        warnings.append(
            f"{where}: {keys.SEGMENT_SIZE} ignored: this kind has no default index label; "
            f"set {keys.POD_INDEX_LABEL} on the pod template"
        )
        return None
    return SegmentConfig(size, segment_constraint(pod_notes, template_notes, topology), index_label)


def segment_constraint(
    pod_notes: Mapping[str, Any], template_notes: Mapping[str, Any], topology: str
) -> TopologyConstraint:
    """Segment levels: pod annotation, else template annotation. No level, or no topology
    name, gives no constraint."""
    required = str(_first(pod_notes, template_notes, key=keys.SEGMENT_REQUIRED))
    preferred = str(_first(pod_notes, template_notes, key=keys.SEGMENT_PREFERRED))
    if not topology or not (required or preferred):
        return NO_CONSTRAINT
    return TopologyConstraint(topology, required, preferred)


def _first(*sources: Mapping[str, Any], key: str) -> object:
    for source in sources:
        if key in source:
            return source[key] or ""
    return ""


def build_segments(
    parent: str, replicas: int, config: SegmentConfig, mandatory: int, *, prefix: str | None = None
) -> list[SubGroup]:
    """Segment leaves ``<prefix>-0 .. <prefix>-(k-1)`` under ``parent`` (prefix defaults to it)."""
    mins = segment_min_members(replicas, config.size, mandatory)
    name = prefix or parent
    return [
        SubGroup(f"{name}-{i}", parent=parent, min_member=m, constraint=config.constraint)
        for i, m in enumerate(mins)
    ]


def pod_index(pod_labels: Mapping[str, Any], label: str, *, offset: int = 0) -> int:
    """The pod's replica index from ``label`` minus ``offset``; missing or negative = error."""
    raw = pod_labels.get(label)
    path = f"pod.metadata.labels[{label}]"
    if raw is None:
        raise fail(path, f"index label {label} is missing on the pod", "the workload controller sets it")
    index = parse_int(raw, path, f"index label {label}")
    if index < 0:
        raise fail(path, f"invalid index label {label}={raw}. It must be bigger than 0", "")
    return index - offset
