"""Placing what the front-end registry compiles: the path ``place``, ``demo`` and every other
command share. The input is parsed documents; the registry picks the front end and the topology,
and a placement session with the command's options places the gang on the cluster. Searches are
bounded in time by the command's CPU time (``CpuClock``)."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from toposched.engine import PlacementOptions, PlacementSession, PolicyRegistry, open_session
from toposched.frontends.registry import CompileContext, PoolEntry, Registry, default_registry
from toposched.intake.parse import parse_documents
from toposched.model import (
    MAX_PODS_PER_GANG,
    Cluster,
    Gang,
    Placement,
    Topology,
    Unschedulable,
)

# The one registry of the process: every command, and the service or controller one starts.
REGISTRY = default_registry()


@dataclass(frozen=True, slots=True)
class PlacementAttempt:
    """One placement attempt with everything needed to show it."""

    cluster: Cluster
    topology: Topology
    gang: Gang
    result: Placement | Unschedulable
    warnings: tuple[str, ...] = ()
    frontend: str = ""
    objects: tuple[Mapping[str, Any], ...] = ()  # what the front end read and would create
    policy: str = ""  # the policy it was placed under

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
    options: PlacementOptions | None = None,
    policies: PolicyRegistry | None = None,
    registry: Registry = REGISTRY,
    max_pods: int = MAX_PODS_PER_GANG,
) -> PlacementAttempt:
    """Compile ``documents`` with the front end they belong to and place the gang on ``cluster``
    with ``options`` (the defaults when None) and the policies of ``policies`` (``topology``:
    asked for by name; ``default``: used when the spec names none, else the cluster's only
    topology; ``max_pods``: the pod limit per gang)."""
    context = CompileContext(topologies=cluster.topologies, pools=pools or {}, max_pods=max_pods)
    if default is None and len(cluster.topologies) == 1:
        default = cluster.topologies[0].name
    chosen, compiled = registry.compile_for(documents, context, topology=topology, default=default)
    known = {t.name for t in cluster.topologies}
    for brought in compiled.topologies:
        if brought.name not in known:
            cluster = cluster.with_topology(brought)
    session = command_session(options, policies)
    # A faithful refusal also says whether the complete search would place the gang.
    result = session.place_on(compiled.gang, cluster, chosen)
    policy = session.policy_of(compiled.gang).name
    return PlacementAttempt(
        cluster, chosen, compiled.gang, result, compiled.warnings, compiled.frontend, compiled.objects, policy
    )


def command_session(
    options: PlacementOptions | None, policies: PolicyRegistry | None = None
) -> PlacementSession:
    """A command's placement session: its options, its policies, its CPU time as the clock
    (the thread's, as the scheduler's ``CpuClock``, whose package a command need not load)."""
    return open_session(options, policies=policies, clock=time.thread_time)


def place_text(
    text: str, cluster: Cluster, *, source: str, options: PlacementOptions | None = None
) -> PlacementAttempt:
    """``place_documents`` for YAML text (the demo's bundled jobs)."""
    return place_documents(parse_documents(text, source=source), cluster, options=options)
