"""The cycle, as numbered steps (like Kueue's ``schedule()``).

1. Node health: find the failed nodes of every admitted or running gang (``health``).
2. Replacement: one failed node on a hostname-level topology is replaced inside the gang's
   assigned domain, booked in one ``reassign`` transaction; otherwise (no room, a second failed node, coarser leaves) the gang is
   evicted back to pending with its spec intact.
3. Admission: pending gangs by priority (high first), then arrival; each placed all-or-nothing
   on the cycle's snapshot and booked in one store transaction; failures wait out a backoff.

Every transition writes an event. An unexpected failure (any exception) while handling one
workload is recorded on that workload, which is marked broken and backed off (``_isolate``), and
never stops the cycle; a workload whose stored placement is damaged is reported the same way and
skipped, its booking kept.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from toposched.emit.result import (
    assignments_from_json,
    placement_to_json,
    pod_nodes,
    problems_to_json,
    reason_to_json,
    unschedulable_to_json,
)
from toposched.engine import SearchBudget, place_gang, replace_failed_node, usage_of
from toposched.model import (
    HOSTNAME,
    ConflictError,
    Gang,
    NotFoundError,
    Placement,
    PodSpec,
    Policy,
    SpecError,
    Unschedulable,
)
from toposched.scheduler.health import NodeFailure, failed_nodes
from toposched.scheduler.state import Backoff, State
from toposched.scheduler.types import EventType, PodStatus
from toposched.scheduler.view import CycleView
from toposched.store import EventRecord, Json, QueueEntry, WorkloadRecord, WorkloadState

log = logging.getLogger(__name__)

HOLDING = (WorkloadState.ADMITTED, WorkloadState.RUNNING)


@dataclass(slots=True)
class Outcome:
    """Workload ids per result, collected while the cycle runs."""

    admitted: list[int] = field(default_factory=list)
    unschedulable: list[int] = field(default_factory=list)
    evicted: list[int] = field(default_factory=list)
    replaced: list[int] = field(default_factory=list)
    # Explanations (and events) of unschedulable workloads not stored yet: a run of them is
    # written in one transaction (``flush_notes``), before the next other write of the cycle.
    notes: list[tuple[int, Json, EventRecord | None]] = field(default_factory=list)


# Most notes one transaction writes: bounds how long it holds the store's write lock.
_NOTES_PER_WRITE = 256


# -- steps 1 and 2: node health, replacement or eviction -----------------------------------------


def heal(state: State, view: CycleView, out: Outcome, holding: list[WorkloadRecord]) -> None:
    """Steps 1-2 for every gang in ``holding`` (read at the start of the cycle). Each runs under
    the lock on a fresh read, so a gang cancelled before is skipped (one cancelled during it makes
    the store refuse the eviction or replacement). Gangs whose nodes are all
    present, Ready, untainted, not cordoned and not booked beyond their capacity cannot have a
    failed node and are not looked at."""
    suspect = {n.name for n in view.nodes.values() if not n.ready or n.taints or n.unschedulable}
    suspect.update(view.overbooked())
    for listed in holding:
        if listed.damage:
            with state.lock:  # its pods cannot be known: keep its booking, report it, skip it
                _mark_broken(state, listed, f"cannot be checked: {listed.damage}")
            continue
        if not _may_have_failed(listed, view, suspect):
            continue
        with state.lock:
            try:
                record = _fresh(state, listed.id, HOLDING)
                if record is not None:
                    _heal_one(state, view, record, out)
            except Exception as exc:  # one broken workload must not stop the cycle
                _isolate(state, out, listed, HOLDING, "node health check failed", exc)
    with state.lock:
        for record in state.store.list_workloads(states=(WorkloadState.EVICTED,)):
            # Evicted by someone else (or a crash between two writes): back to the queue.
            try:
                state.store.requeue(
                    record.id, state.event(EventType.EVICTED, "requeued after eviction", record.id)
                )
            except Exception as exc:
                _isolate(state, out, record, (WorkloadState.EVICTED,), "requeue failed", exc)


def _may_have_failed(record: WorkloadRecord, view: CycleView, suspect: set[str]) -> bool:
    try:
        nodes = pod_nodes(record.placement).values()
    except (KeyError, TypeError, AttributeError):
        return True  # a placement of the wrong shape: looked at, and the failure recorded
    return any(node is not None and (node in suspect or node not in view.nodes) for node in nodes)


def _fresh(state: State, workload_id: int, states: tuple[WorkloadState, ...]) -> WorkloadRecord | None:
    """The workload as stored now, or None when it left ``states`` since it was listed."""
    try:
        record = state.store.get_workload(workload_id)
    except NotFoundError:
        return None
    return record if record.state in states else None


def _heal_one(state: State, view: CycleView, record: WorkloadRecord, out: Outcome) -> None:
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
    policy = Policy(placement.get("policy", state.config.policy))
    current = assignments_from_json(placement.get("assignments", {}))
    result = replace_failed_node(gang, view.snapshot(topology), current, hostname, policy=policy)
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
            placement_to_json(result),
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


# -- step 3: admission -----------------------------------------------------------------------------


def admit(state: State, view: CycleView, out: Outcome, pending: list[QueueEntry]) -> None:
    """Step 3: place ``pending`` (the queue read after step 2) in priority then arrival order,
    each under the lock on a fresh read; workloads still backing off are not even read."""
    now = state.clock.now()
    for record in sorted(pending, key=lambda r: (-r.priority, r.sequence, r.id)):
        wait = state.backoff.get(record.id)
        if wait is not None and wait.not_before > now:
            continue
        with state.lock:
            try:
                current = _fresh(state, record.id, (WorkloadState.PENDING,))
                if current is not None:  # else cancelled since the list was read
                    _admit_one(state, view, current, out)
            except Exception as exc:  # one broken workload must not stop the cycle
                _isolate(state, out, record, (WorkloadState.PENDING,), "admission failed", exc)
    with state.lock:
        flush_notes(state, out)


def _admit_one(state: State, view: CycleView, record: WorkloadRecord, out: Outcome) -> None:
    try:
        topology = state.topology_of(record)
    except NotFoundError as exc:
        _unschedulable(state, record, reason_to_json(str(exc)), out)
        return
    try:
        gang = state.gang_of(record, topology)
    except SpecError as exc:
        reason = f"the stored spec no longer compiles: {exc}"
        _unschedulable(
            state,
            record,
            reason_to_json(reason, problems=problems_to_json(exc.problems)),
            out,
            EventType.INVALID,
        )
        return
    try:
        snapshots = {t.name: view.snapshot(t) for t in state.topologies_named(gang)}
    except NotFoundError as exc:
        _unschedulable(state, record, reason_to_json(str(exc)), out)
        return
    config = state.config
    start = state.clock.now()
    budget = SearchBudget(config.search_steps, lambda: state.clock.now() - start > config.search_seconds)
    policy = gang.policy or config.policy
    result = place_gang(
        gang,
        view.snapshot(topology),
        policy=policy,
        snapshots=snapshots,
        search=config.search,
        budget=budget,
        probe=True,  # a faithful refusal says whether the complete search would place it
    )
    if isinstance(result, Unschedulable):
        _unschedulable(state, record, unschedulable_to_json(result), out)
        return
    usage = usage_of(result, gang)
    nodes = sorted(usage)
    message = f"admitted on {len(nodes)} node(s) of topology {topology.name}"
    if result.note:
        message += f" ({result.note})"
    flush_notes(state, out)  # the events of the workloads before this one come first
    try:
        state.store.admit(
            record.id,
            placement_to_json(result),
            usage,
            state.event(EventType.ADMITTED, message, record.id, {"nodes": nodes}),
        )
    except ConflictError as exc:
        if state.store.get_workload(record.id).state is not WorkloadState.PENDING:
            return  # cancelled or admitted elsewhere meanwhile
        _unschedulable(state, record, reason_to_json(str(exc)), out)
        return
    view.charge(record.id, usage)
    state.tracker.clear(record.id)
    state.backoff.pop(record.id, None)
    state.reported.pop(record.id, None)
    state.health.broken.pop(record.id, None)
    out.admitted.append(record.id)


def _unschedulable(
    state: State,
    record: WorkloadRecord,
    explanation: dict[str, Json],
    out: Outcome,
    kind: EventType = EventType.UNSCHEDULABLE,
) -> None:
    """Explain, log an event when the reason changed, and back off (base, doubled, capped).
    The explanation and event are queued in ``out.notes``, stored with their neighbours'."""
    _back_off(state, record.id)
    state.health.broken.pop(record.id, None)  # it failed in an ordinary way this time
    reason = str(explanation.get("reason", ""))
    event = None
    if state.reported.get(record.id) != reason:
        event = state.event(kind, reason, record.id, explanation)
        state.reported[record.id] = reason
    if event is not None or record.explanation != explanation:  # unchanged: no write at all
        out.notes.append((record.id, explanation, event))
        if len(out.notes) >= _NOTES_PER_WRITE:
            flush_notes(state, out)
    out.unschedulable.append(record.id)


def flush_notes(state: State, out: Outcome) -> None:
    """Store the queued explanations and events in one transaction (workloads cancelled since
    are skipped by the store). When it fails, their reasons count as unreported, so the next
    attempt writes them again."""
    notes, out.notes = out.notes, []
    try:
        state.store.explain_pending(notes)
    except Exception:
        for workload, _, event in notes:
            if event is not None and state.reported.get(workload) == event.message:
                del state.reported[workload]
        raise


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


def _isolate(
    state: State,
    out: Outcome,
    listed: WorkloadRecord | QueueEntry,
    states: tuple[WorkloadState, ...],
    what: str,
    exc: Exception,
) -> None:
    """Confine an unexpected failure to its workload: unless the workload left ``states``
    meanwhile (a cancel or finish takes no lock), it is marked broken. Never raises, so the
    cycle goes on with the others."""
    try:
        if _fresh(state, listed.id, states) is None:
            return
        flush_notes(state, out)  # keeps the event log in cycle order
    except Exception:
        log.exception("could not record the failure of workload %s", listed.id)
    _mark_broken(state, listed, f"{what}: {type(exc).__name__}: {exc}", exc)


def _mark_broken(
    state: State, listed: WorkloadRecord | QueueEntry, reason: str, exc: Exception | None = None
) -> None:
    """Back the workload off and record why it failed (explanation, an event and the health
    report), logging the traceback only when the reason is new; never raises."""
    _back_off(state, listed.id)
    state.health.broken[listed.id] = reason
    if state.reported.get(listed.id) == reason:
        return  # already recorded: retried after its backoff without filling the log
    log.error("workload %s is broken: %s", listed.id, reason, exc_info=exc)
    try:
        state.store.set_explanation(listed.id, reason_to_json(reason, broken=True))
        state.store.append_event(state.event(EventType.INVALID, reason, listed.id))
        state.reported[listed.id] = reason
    except Exception:
        log.exception("could not record the failure of workload %s", listed.id)


# Doublings after which every delay is the maximum: 2**64 times any base beyond a sane maximum.
_MAX_DOUBLINGS = 64


def _back_off(state: State, workload: int) -> None:
    """Skip the workload for base * 2**(attempts - 1) seconds, at most the configured maximum.
    The exponent is capped first, so no number of attempts can overflow the delay."""
    config = state.config
    previous = state.backoff.get(workload)
    attempts = previous.attempts + 1 if previous is not None else 1
    doublings = min(attempts - 1, _MAX_DOUBLINGS)
    delay = min(config.backoff_base_seconds * 2.0**doublings, config.backoff_max_seconds)
    state.backoff[workload] = Backoff(attempts, state.clock.now() + delay)
