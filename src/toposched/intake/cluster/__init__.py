"""Cluster dumps → the model: Nodes, the Pods already using capacity, and Topology objects
(Kueue and KAI). Reads YAML or JSON as ``kubectl get ... -o yaml`` or ``-o json`` prints it."""

from toposched.intake.cluster.loader import cluster_from_objects, load_cluster, load_cluster_report
from toposched.intake.cluster.topology import (
    load_topology,
    parse_topology_object,
    topologies_from_documents,
)

__all__ = [
    "cluster_from_objects",
    "load_cluster",
    "load_cluster_report",
    "load_topology",
    "parse_topology_object",
    "topologies_from_documents",
]
