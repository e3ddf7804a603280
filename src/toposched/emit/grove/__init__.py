"""Grove emitters: ClusterTopology objects and the KAI Topology kept per ClusterTopology."""

from toposched.emit.grove.objects import cluster_topology, domains_of, kai_topology

__all__ = ["cluster_topology", "domains_of", "kai_topology"]
