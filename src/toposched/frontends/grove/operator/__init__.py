"""The Grove operator's topology rules (GREP-369) over named Grove, KAI and Kueue topologies:
the default topology, finalizers, the level-update guard, the KAI Topology sync
(``topologies``, ``controllers``, ``status``), and which workloads use which topology
(``usage``)."""

from toposched.frontends.grove.operator.controllers import FINALIZER
from toposched.frontends.grove.operator.topologies import TopologyRegistry, kind_of
from toposched.frontends.grove.operator.usage import UsageRow, format_usage, usage

__all__ = ["FINALIZER", "TopologyRegistry", "UsageRow", "format_usage", "kind_of", "usage"]
