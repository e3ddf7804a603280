"""Defragmentation advice on the service's current state: which workloads to move so that N
whole domains of a level become free.

The cluster is what the loop sees: stored nodes, the pods toposched did not place (they move pod
by pod, grouped by owner), and the admitted workloads, which move whole: their gang, compiled
from the stored spec, is placed again under its own constraints and policy.
"""

from __future__ import annotations

from dataclasses import replace

from toposched.engine import plan_defrag
from toposched.model import DefragPlan, Gang, RunningPod
from toposched.scheduler.explaining import OWN_NAMESPACE, workload_pods
from toposched.scheduler.outcome import HOLDING
from toposched.scheduler.state import State


def plan_for_service(state: State, level: str, count: int, topology: str | None = None) -> DefragPlan:
    """Free ``count`` domains of ``level`` (label key, alias or short name) in ``topology`` (the
    default one when None). ``SpecError`` naming ``level`` when the topology lacks it."""
    store = state.store
    chosen = store.get_topology(topology) if topology is not None else state.default_topology()
    key = chosen.level_named(level, path="level")
    holding = [r for r in store.list_workloads(states=HOLDING) if r.placement is not None]
    gangs: dict[str, Gang] = {}
    for record in holding:
        gangs[f"{OWN_NAMESPACE}/{record.id}"] = state.gang_of(record, state.topology_of(record))
    # The gang's own pod names, so the moves name the pods the workload's spec names.
    own = [_named_as_in_gang(p) for p in workload_pods(holding, store.reservations_by_workload(), None)]
    pods = [*state.tracker.external, *own]
    session = state.new_session()  # the loop's options, in a session of this request's own
    return plan_defrag(
        chosen, store.get_nodes(), pods, chosen.levels.index(key), count, gangs=gangs, session=session
    )


def _named_as_in_gang(pod: RunningPod) -> RunningPod:
    return replace(pod, name=pod.name.removeprefix(f"{pod.owner}-"))
