"""Topology registry: named Grove, KAI and Kueue topologies, Grove's operator lifecycle rules
(default topology, finalizers, level-update guard, KAI Topology sync) and usage reports."""

from toposched.scheduler.registry.operator import FINALIZER, TopologyRegistry, kind_of
from toposched.scheduler.registry.usage import UsageRow, format_usage, usage

__all__ = ["FINALIZER", "TopologyRegistry", "UsageRow", "format_usage", "kind_of", "usage"]
