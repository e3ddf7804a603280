"""KAI Scheduler front end: the PodGroup (``scheduling.run.ai/v2alpha2``) and its admission
rules, the Topology (``kai.scheduler/v1alpha1``) rules, the PodGrouper with segments, and the
compiled PodGroup as the IR."""

from toposched.frontends.kai.aliases import resolve_constraint, resolve_group, resolved_levels
from toposched.frontends.kai.common import KaiGrouping
from toposched.frontends.kai.gang import to_gang
from toposched.frontends.kai.grouper import compile_workload
from toposched.frontends.kai.segments import segment_count, segment_min_members, segment_of
from toposched.frontends.kai.validate import (
    ValidationResult,
    topology_from_object,
    validate_podgroup,
    validate_topology,
)
from toposched.frontends.kai.workload import (
    WORKLOAD_KINDS,
    KaiPod,
    KaiWorkload,
    is_kai_document,
    load_kai,
    load_owned_pods,
    load_podgroup_file,
    load_workload,
    pod_path,
    workload_pods,
)

__all__ = [
    "WORKLOAD_KINDS",
    "KaiGrouping",
    "KaiPod",
    "KaiWorkload",
    "ValidationResult",
    "compile_workload",
    "is_kai_document",
    "load_kai",
    "load_owned_pods",
    "load_podgroup_file",
    "load_workload",
    "pod_path",
    "resolve_constraint",
    "resolve_group",
    "resolved_levels",
    "segment_count",
    "segment_min_members",
    "segment_of",
    "to_gang",
    "topology_from_object",
    "validate_podgroup",
    "validate_topology",
    "workload_pods",
]
