"""Step 3 of the cycle, admission: pending gangs by priority (high first), then arrival; each
placed all-or-nothing on the cycle's view and its booking queued with the cycle's other decisions
(stored a run at a time, see ``outcome``); failures wait out a backoff.

A refusal is remembered per gang shape until the next change of the cycle's capacity
(``shapes``), so once the cluster is full a queue of many alike gangs asks the engine once per
shape, not once per gang.
"""

from __future__ import annotations

from toposched.emit.result import placement_to_json, problems_to_json, reason_to_json, unschedulable_to_json
from toposched.engine import SearchBudget, place_gang, usage_of
from toposched.model import NotFoundError, Placement, SpecError, Unschedulable
from toposched.scheduler.kept import topology_key
from toposched.scheduler.outcome import PENDING, Outcome, explain, flush, fresh, isolate
from toposched.scheduler.shapes import Refusals, shape_of
from toposched.scheduler.state import State
from toposched.scheduler.types import EventType
from toposched.scheduler.view import CycleView
from toposched.store import Admission, QueueEntry, WorkloadRecord


def admit(state: State, view: CycleView, out: Outcome, pending: list[QueueEntry]) -> None:
    """Place ``pending`` (the queue read after step 2) in priority then arrival order, each
    under the lock on a fresh read; workloads still backing off are not even read."""
    now = state.clock.now()
    refusals = Refusals()
    for entry in sorted(pending, key=lambda r: (-r.priority, r.sequence, r.id)):
        wait = state.backoff.get(entry.id)
        if wait is not None and wait.not_before > now:
            continue
        with state.lock:
            try:
                current = fresh(state, entry.id, PENDING)
                if current is not None:  # else cancelled since the list was read
                    _admit_one(state, view, current, out, refusals)
            except Exception as exc:  # one broken workload must not stop the cycle
                isolate(state, view, out, entry.id, PENDING, "admission failed", exc)
    with state.lock:
        while out.decisions:  # a refused admission queues its explanation
            flush(state, view, out)


def _admit_one(
    state: State, view: CycleView, record: WorkloadRecord, out: Outcome, refusals: Refusals
) -> None:
    try:
        topology = state.topology_of(record)
    except NotFoundError as exc:
        explain(state, view, out, record, reason_to_json(str(exc)))
        return
    try:
        gang = state.gang_of(record, topology)
    except SpecError as exc:
        reason = f"the stored spec no longer compiles: {exc}"
        explanation = reason_to_json(reason, problems=problems_to_json(exc.problems))
        explain(state, view, out, record, explanation, EventType.INVALID)
        return
    try:
        named = state.topologies_named(gang, record)
        snapshots = {t.name: view.snapshot(t) for t in named}
    except NotFoundError as exc:
        explain(state, view, out, record, reason_to_json(str(exc)))
        return
    config = state.config
    policy = gang.policy or config.policy
    shape = shape_of(gang, [topology_key(t) for t in (topology, *named)], policy)
    result: Placement | Unschedulable | None = refusals.get(shape, gang, view.changes)
    if result is None:
        start = state.clock.now()
        budget = SearchBudget(config.search_steps, lambda: state.clock.now() - start > config.search_seconds)
        result = place_gang(
            gang,
            view.snapshot(topology),
            policy=policy,
            snapshots=snapshots,
            search=config.search,
            budget=budget,
            probe=True,  # a faithful refusal says whether the complete search would place it
            caches=state.caches,
        )
        if isinstance(result, Unschedulable):
            refusals.remember(shape, gang, result, view.changes)
    if isinstance(result, Unschedulable):
        explain(state, view, out, record, unschedulable_to_json(result))
        return
    usage = usage_of(result, gang)
    nodes = sorted(usage)
    message = f"admitted on {len(nodes)} node(s) of topology {topology.name}"
    if result.note:
        message += f" ({result.note})"
    event = state.event(EventType.ADMITTED, message, record.id, {"nodes": nodes})
    view.charge(record.id, usage)  # the gangs after it are placed around it
    out.waiting[record.id] = record
    out.queue(state, view, Admission(record.id, placement_to_json(result), usage, event), len(result.pods))
