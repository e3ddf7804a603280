"""The cycle, as numbered steps (like Kueue's ``schedule()``); step 3 lives in ``admission``.

1. Node health: find the failed nodes of every admitted or running gang (``health``).
2. Replacement: one failed node on a hostname-level topology is replaced inside the gang's
   assigned domain, booked in one ``reassign`` transaction; otherwise (no room, a second failed node, coarser leaves) the gang is
   evicted back to pending with its spec intact.
3. Admission: pending gangs by priority (high first), then arrival; each placed all-or-nothing
   on the cycle's snapshot, its booking stored with a run of the cycle's other decisions in one
   store transaction; failures wait out a backoff.

Every transition writes an event. An unexpected failure (any exception) while handling one
workload is recorded on that workload, which is marked broken and backed off
(``outcome.isolate``), and never stops the cycle; a workload whose stored placement is damaged
is reported the same way and skipped, its booking kept.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from toposched.emit.result import assignments_from_json, placement_to_json, reason_to_json
from toposched.engine import usage_of
from toposched.model import (
    HOSTNAME,
    ConflictError,
    Gang,
    NotFoundError,
    Placement,
    PodSpec,
    SpecError,
    Unschedulable,
)
from toposched.scheduler.health import NodeFailure, failed_nodes
from toposched.scheduler.outcome import HOLDING, CycleTally, fresh, isolate, mark_broken
from toposched.scheduler.running import carried
from toposched.scheduler.state import State
from toposched.scheduler.types import EventType, PodStatus
from toposched.scheduler.view import CycleView
from toposched.store import WorkloadRecord, WorkloadState

# -- steps 1 and 2: node health, replacement or eviction -----------------------------------------


def heal(state: State, view: CycleView, out: CycleTally) -> None:
    """Steps 1-2 for the gangs holding capacity that may have failed (``CycleView.to_check``:
    the view knows where every gang's pods are without reading any placement; the others cannot
    have a failed node and are not looked at). Each runs under the lock on a fresh read, so a
    gang cancelled before is skipped (one cancelled during it makes the store refuse the
    eviction or replacement)."""
    with state.lock:  # API threads report pod statuses under it
        to_check = view.to_check(list(state.tracker.stopped()))
    for workload in to_check:
        damage = view.holding.damaged.get(workload)
        if damage:
            with state.lock:  # its pods cannot be known: keep its booking, report it, skip it
                mark_broken(state, workload, f"cannot be checked: {damage}")
            continue
        with state.lock:
            try:
                record = fresh(state, workload, HOLDING)
                if record is not None:
                    _heal_one(state, view, record, out)
            except Exception as exc:  # one broken workload must not stop the cycle
                isolate(state, view, out, workload, HOLDING, "node health check failed", exc)
    with state.lock:
        for record in state.store.list_workloads(states=(WorkloadState.EVICTED,)):
            # Evicted by someone else (or a crash between two writes): back to the queue.
            try:
                state.store.requeue(
                    record.id, state.event(EventType.EVICTED, "requeued after eviction", record.id)
                )
            except Exception as exc:
                isolate(state, view, out, record.id, (WorkloadState.EVICTED,), "requeue failed", exc)


def _heal_one(state: State, view: CycleView, record: WorkloadRecord, out: CycleTally) -> None:
    placement = record.placement if isinstance(record.placement, Mapping) else {}
    gang, topology = _gang_or_none(state, record)
    specs: dict[tuple[str, str], PodSpec] = {}
    if gang is not None:
        specs = {(leaf.name, pod.name): pod for leaf in gang.leaves() for pod in leaf.pods}
    pods_by_node: dict[str, list[tuple[PodSpec | None, PodStatus]]] = {}
    for pod in placement.get("pods", []):
        if pod.get("node") is None:
            continue
        spec = specs.get((str(pod["podSet"]), str(pod["name"])))
        status = state.tracker.status(record.id, str(pod["name"]))
        pods_by_node.setdefault(str(pod["node"]), []).append((spec, status))
    # Overbooking is computed afresh per gang: once enough gangs left a shrunk node, it is fine.
    now, over = state.clock.now(), view.overbooked()
    failures = failed_nodes(pods_by_node, view.nodes, state.tracker, now, state.config, over)
    if not failures:
        return
    if len(failures) > 1:
        names = ", ".join(f.node for f in failures)
        _evict(state, view, record, f"nodes {names} failed; only a single failed node is replaced", failures)
        out.evicted.append(record.id)
        return
    failure = failures[0]
    if gang is None or topology is None or not topology.hostname_is_lowest:
        _evict(
            state,
            view,
            record,
            f"{failure.reason}; a node is only replaced when the topology's lowest level is {HOSTNAME}",
            failures,
        )
        out.evicted.append(record.id)
        return
    node = view.nodes.get(failure.node)
    hostname = node.labels.get(HOSTNAME, failure.node) if node is not None else failure.node
    policy = str(placement.get("policy") or state.session.options.policy_for(gang))  # as it was placed
    current = assignments_from_json(placement.get("assignments", {}))
    result = state.session.replace_failed_node(gang, view.snapshot(topology), current, hostname, policy)
    if isinstance(result, Unschedulable):
        _evict(state, view, record, f"{failure.reason}; no replacement: {result.message}", failures)
        out.evicted.append(record.id)
        return
    if _commit_replacement(state, view, record, placement, gang, result, failure):
        out.replaced.append(record.id)
    else:
        out.evicted.append(record.id)


def _commit_replacement(
    state: State,
    view: CycleView,
    record: WorkloadRecord,
    placement: Mapping[str, Any],
    gang: Gang,
    result: Placement,
    failure: NodeFailure,
) -> bool:
    """Book the repaired placement in one store transaction (``reassign``): the gang keeps its
    state and never passes through pending. When the store refuses (capacity taken meanwhile),
    the gang is evicted instead."""
    usage = usage_of(result, gang)
    before = {str(p["name"]): p.get("node") for p in placement.get("pods", [])}
    moved = sorted(p.pod for p in result.pods if before.get(p.pod) != p.node)
    data: dict[str, Any] = {"node": failure.node, "reason": failure.reason, "moved": moved}
    message = f"{failure.reason}; node {failure.node} replaced: {len(moved)} pod(s) moved"
    try:
        state.store.reassign(
            record.id,
            carried(placement, placement_to_json(result)),  # it keeps running: same admission time
            usage,
            state.event(EventType.NODE_REPLACED, message, record.id, data),
        )
    except ConflictError as exc:
        _evict(state, view, record, f"{failure.reason}; replacement refused: {exc}", [failure])
        return False
    view.charge(record.id, usage)
    state.tracker.clear(record.id, moved)
    state.health.broken.pop(record.id, None)
    return True


def _evict(
    state: State, view: CycleView, record: WorkloadRecord, reason: str, failures: list[NodeFailure]
) -> None:
    """Free the gang's capacity and put it back in the queue (same arrival order, spec intact)."""
    nodes = [f.node for f in failures]
    state.store.requeue(
        record.id,
        state.event(EventType.EVICTED, f"evicted: {reason}", record.id, {"reason": reason, "nodes": nodes}),
    )
    state.store.set_explanation(record.id, reason_to_json(f"evicted: {reason}", failedNodes=nodes))
    view.release(record.id)
    state.tracker.clear(record.id)
    state.backoff.pop(record.id, None)
    state.reported.pop(record.id, None)
    state.health.broken.pop(record.id, None)


# -- helpers ---------------------------------------------------------------------------------------


def _gang_or_none(state: State, record: WorkloadRecord) -> tuple[Gang | None, Any]:
    """The gang and its topology, or None for either when they cannot be had any more."""
    try:
        topology = state.topology_of(record)
    except NotFoundError:
        return None, None
    try:
        return state.gang_of(record, topology), topology
    except SpecError:
        return None, topology
