"""toposched: a topology-aware gang scheduler for GPU clusters.

The public API: load a cluster and a workload, place it, and emit the Kubernetes objects::

    cluster = load_cluster(open("cluster.yaml").read())
    gang = load_workload(open("job.yaml").read(), cluster.topology())
    result = place(gang, cluster)          # Placement | Unschedulable

A caller that places many gangs opens one placement session with its options and keeps it::

    session = open_session(PlacementOptions(policy="bestfit"))
    result = session.place_on(gang, cluster)

The names below are imported on first use (PEP 562), so a program that needs one subpackage (the
command line's ``--version``, a front end alone) does not pay for loading the engine and numpy.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
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

# Where each public name lives.
_HOMES = {
    "toposched.model": (
        "Cluster Gang Group Node Placement PodSpec Policy Problem Resources Search SliceLayer "
        "Topology TopologyAssignment Unschedulable SpecError ToposchedError"
    ),
    "toposched.intake.cluster": "load_cluster load_topology",
    "toposched.frontends.loading": "load_workload",
    "toposched.engine": (
        "PlacementOptions PlacementSession PolicyRegistry open_session place place_gang "
        "replace_failed_node usage_of"
    ),
    "toposched.snapshot": "Snapshot",
    "toposched.topology": "TopologyTree",
    "toposched.emit.kueue": "to_v1beta1 to_v1beta2",
}
_MODULE_OF = {name: module for module, names in _HOMES.items() for name in names.split()}


def __getattr__(name: str) -> Any:
    module = _MODULE_OF.get(name)
    if module is None:
        raise AttributeError(f"module 'toposched' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_MODULE_OF])


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
