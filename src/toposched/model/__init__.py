"""Plain typed data shared by every layer: quantities, resources, nodes, topologies, the IR,
results and the error tree. Standard library only."""

from toposched.model.cluster import Cluster
from toposched.model.defrag import DefragPlan, PodMove, WorkloadMove
from toposched.model.errors import (
    ClusterSpecError,
    ConflictError,
    NotFoundError,
    PermissionDeniedError,
    Problem,
    SpecError,
    StoreError,
    TopologySpecError,
    ToposchedError,
    WorkloadSpecError,
)
from toposched.model.explanation import (
    DomainFit,
    Exclusion,
    ExclusionReason,
    Explanation,
    Suggestion,
    SuggestionKind,
)
from toposched.model.ir import Gang, Group, Mode, PodSpec, Policy, Role, Search, Semantics, SliceLayer
from toposched.model.limits import MAX_PODS_PER_GANG, PodBudget
from toposched.model.node import Node, RunningPod, Taint, TaintEffect, Toleration, TolerationOperator
from toposched.model.placement import (
    DomainCount,
    LayerFit,
    LazyRecords,
    Placement,
    PodPlacement,
    Result,
    TopologyAssignment,
    Unschedulable,
)
from toposched.model.quantity import CPU, MEMORY, PODS, format_quantity, parse_quantity
from toposched.model.resources import EMPTY, Resources
from toposched.model.topology import HOSTNAME, Topology, is_label_key
from toposched.model.translation import Translation

__all__ = [
    "CPU",
    "EMPTY",
    "HOSTNAME",
    "MAX_PODS_PER_GANG",
    "MEMORY",
    "PODS",
    "Cluster",
    "Translation",
    "DefragPlan",
    "PodMove",
    "WorkloadMove",
    "DomainFit",
    "Exclusion",
    "ExclusionReason",
    "Explanation",
    "Suggestion",
    "SuggestionKind",
    "ClusterSpecError",
    "ConflictError",
    "DomainCount",
    "Gang",
    "Group",
    "LayerFit",
    "LazyRecords",
    "Mode",
    "Node",
    "NotFoundError",
    "PermissionDeniedError",
    "Placement",
    "PodBudget",
    "PodPlacement",
    "PodSpec",
    "Policy",
    "Problem",
    "Resources",
    "Result",
    "Role",
    "RunningPod",
    "Search",
    "Semantics",
    "SliceLayer",
    "SpecError",
    "StoreError",
    "Taint",
    "TaintEffect",
    "Toleration",
    "TolerationOperator",
    "Topology",
    "TopologyAssignment",
    "TopologySpecError",
    "ToposchedError",
    "Unschedulable",
    "WorkloadSpecError",
    "format_quantity",
    "is_label_key",
    "parse_quantity",
]
