"""Topology registry: named Grove, KAI and Kueue topologies, Grove's operator lifecycle rules
(default topology, finalizers, level-update guard, KAI Topology sync), usage reports, and the
same guards for the service's stored topologies and pools."""

from toposched.scheduler.registry.controllers import FINALIZER
from toposched.scheduler.registry.guards import check_pool_update, check_topology_update
from toposched.scheduler.registry.operator import TopologyRegistry, kind_of
from toposched.scheduler.registry.usage import UsageRow, format_usage, usage

__all__ = [
    "check_pool_update",
    "check_topology_update",
    "FINALIZER",
    "TopologyRegistry",
    "UsageRow",
    "format_usage",
    "kind_of",
    "usage",
]
