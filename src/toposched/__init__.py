"""toposched: a topology-aware gang scheduler for GPU clusters."""

from toposched.model import (
    Cluster,
    Gang,
    Group,
    Placement,
    PodSpec,
    Policy,
    Problem,
    SpecError,
    Topology,
    ToposchedError,
    Unschedulable,
)

__all__ = [
    "Cluster",
    "Gang",
    "Group",
    "Placement",
    "PodSpec",
    "Policy",
    "Problem",
    "SpecError",
    "Topology",
    "ToposchedError",
    "Unschedulable",
]
