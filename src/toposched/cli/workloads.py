"""Placing what the front-end registry compiles: the path ``place``, ``demo`` and every other
command share. The input is parsed documents; the registry picks the front end and the topology,
the engine places the gang on the cluster."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from toposched.engine import place
from toposched.frontends.parse import parse_documents
from toposched.frontends.registry import CompileContext, PoolEntry, Registry, default_registry
from toposched.model import (
    MAX_PODS_PER_GANG,
    Cluster,
    Gang,
    Placement,
    Policy,
    Search,
    Topology,
    Unschedulable,
)

REGISTRY = default_registry()


@dataclass(frozen=True, slots=True)
class Outcome:
    """One placement attempt with everything needed to show it."""

    cluster: Cluster
    topology: Topology
    gang: Gang
    result: Placement | Unschedulable
    warnings: tuple[str, ...] = ()
    frontend: str = ""
    objects: tuple[Mapping[str, Any], ...] = ()  # what the front end read and would create

    @property
    def placed(self) -> bool:
        return isinstance(self.result, Placement)


def place_documents(
    documents: Sequence[Any],
    cluster: Cluster,
    *,
    topology: str | None = None,
    default: str | None = None,
    pools: Mapping[str, PoolEntry] | None = None,
    policy: Policy | None = None,
    search: Search = Search.FAITHFUL,
    registry: Registry = REGISTRY,
    max_pods: int = MAX_PODS_PER_GANG,
) -> Outcome:
    """Compile ``documents`` with the front end they belong to and place the gang on ``cluster``
    (``topology``: asked for by name; ``default``: used when the spec names none, else the
    cluster's only topology; ``max_pods``: the pod limit per gang)."""
    context = CompileContext(topologies=cluster.topologies, pools=pools or {}, max_pods=max_pods)
    if default is None and len(cluster.topologies) == 1:
        default = cluster.topologies[0].name
    chosen, compiled = registry.compile_for(documents, context, topology=topology, default=default)
    known = {t.name for t in cluster.topologies}
    for brought in compiled.topologies:
        if brought.name not in known:
            cluster = cluster.with_topology(brought)
    # A faithful refusal also says whether the complete search would place the gang.
    result = place(compiled.gang, cluster, topology=chosen, policy=policy, search=search, probe=True)
    return Outcome(
        cluster, chosen, compiled.gang, result, compiled.warnings, compiled.frontend, compiled.objects
    )


def place_text(text: str, cluster: Cluster, *, source: str, policy: Policy | None = None) -> Outcome:
    """``place_documents`` for YAML text (the demo's bundled jobs)."""
    return place_documents(parse_documents(text, source=source), cluster, policy=policy)
