"""toposched: a topology-aware gang scheduler for GPU clusters.

The public API: load a cluster and a workload, place it, and emit the Kubernetes objects::

    cluster = load_cluster(open("cluster.yaml").read())
    gang = load_workload(open("job.yaml").read(), cluster.topology())
    result = place(gang, cluster)          # Placement | Unschedulable

A caller that places many gangs opens one placement session with its options and keeps it::

    session = open_session(PlacementOptions(policy="bestfit"))
    result = session.place_on(gang, cluster)
"""

from toposched.emit.kueue import to_v1beta1, to_v1beta2
from toposched.engine import (
    PlacementOptions,
    PlacementSession,
    PolicyRegistry,
    open_session,
    place,
    place_gang,
    replace_failed_node,
    usage_of,
)
from toposched.frontends.loading import load_workload
from toposched.intake.cluster import load_cluster, load_topology
from toposched.model import (
    Cluster,
    Gang,
    Group,
    Node,
    Placement,
    PodSpec,
    Policy,
    Problem,
    Resources,
    Search,
    SliceLayer,
    SpecError,
    Topology,
    TopologyAssignment,
    ToposchedError,
    Unschedulable,
)
from toposched.snapshot import Snapshot
from toposched.topology import TopologyTree

__all__ = [
    # data
    "Cluster",
    "Gang",
    "Group",
    "Node",
    "Placement",
    "PodSpec",
    "Policy",
    "Problem",
    "Resources",
    "Search",
    "SliceLayer",
    "Topology",
    "TopologyAssignment",
    "Unschedulable",
    # errors
    "SpecError",
    "ToposchedError",
    # loading
    "load_cluster",
    "load_topology",
    "load_workload",
    # placing
    "PlacementOptions",
    "PlacementSession",
    "PolicyRegistry",
    "Snapshot",
    "TopologyTree",
    "open_session",
    "place",
    "place_gang",
    "replace_failed_node",
    "usage_of",
    # emitting
    "to_v1beta1",
    "to_v1beta2",
]
