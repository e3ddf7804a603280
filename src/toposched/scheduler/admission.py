"""Step 3 of the cycle, admission: pending gangs by priority (high first), then arrival; each
placed all-or-nothing on the cycle's view and its booking queued with the cycle's other decisions
(stored a run at a time, see ``outcome``); failures wait out a backoff.

A refusal is remembered per gang shape until the next change of the cycle's capacity
(``shapes``), so once the cluster is full a queue of many alike gangs asks the engine once per
shape, not once per gang. Each gang is placed in the cycle's round of the loop's placement
session, keyed by its workload: the exact searches of a cycle share the round's time
(``SchedulerConfig.round_seconds``), a search that reaches its share goes on in the next cycle
(the gang is not backed off meanwhile), and a refusal is kept until the cluster or the gang
changes (``toposched.engine.rounds``).
"""

from __future__ import annotations

from collections.abc import Iterable

from toposched.emit.result import placement_to_json, problems_to_json, reason_to_json, unschedulable_to_json
from toposched.engine import usage_of
from toposched.model import Gang, NotFoundError, Placement, SpecError, Unschedulable
from toposched.scheduler.kept import topology_key
from toposched.scheduler.outcome import PENDING, Outcome, explain, flush, fresh, isolate
from toposched.scheduler.shapes import Refusals, shape_of
from toposched.scheduler.state import State
from toposched.scheduler.types import EventType
from toposched.scheduler.view import CycleView
from toposched.store import Admission, QueueEntry, WorkloadRecord


def admission_order(pending: Iterable[QueueEntry]) -> list[QueueEntry]:
    """The order pending workloads are tried in: priority, then arrival (``list`` shows it)."""
    return sorted(pending, key=lambda r: (-r.priority, r.sequence, r.id))


def admit(state: State, view: CycleView, out: Outcome, pending: list[QueueEntry]) -> None:
    """Place ``pending`` (the queue read after step 2) in priority then arrival order, each
    under the lock on a fresh read; workloads still backing off are not even read."""
    now = state.clock.now()
    refusals = Refusals()
    state.session.begin_round()
    for entry in admission_order(pending):
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


def admit_known(state: State, record: WorkloadRecord, gang: Gang, placement: Placement, message: str) -> None:
    """Admit a pending workload with a placement made before (the controller's restore: what its
    pods record), booked as the cycle books one: the stored placement document and the usage of
    its pods, checked by the store against everything booked. ``ConflictError`` (nothing
    written) when it no longer fits or the workload is not pending."""
    usage = usage_of(placement, gang)
    event = state.event(EventType.ADMITTED, message, record.id, {"nodes": sorted(usage)})
    with state.lock:
        refused = state.store.write_decisions(
            [Admission(record.id, placement_to_json(placement), usage, event)]
        )
    if record.id in refused:
        raise refused[record.id]
    state.notify()


def _admit_one(
    state: State, view: CycleView, record: WorkloadRecord, out: Outcome, refusals: Refusals
) -> None:
    try:
        topology = state.topology_of(record)
    except NotFoundError as exc:
        explain(state, view, out, record, reason_to_json(str(exc)))
        return
    session = state.session
    try:
        gang = state.gang_of(record, topology)
        policy = session.policy_of(gang)  # one the loop no longer knows is a spec error too
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
    shape = shape_of(gang, [topology_key(t) for t in (topology, *named)], policy.name)
    result: Placement | Unschedulable | None = refusals.get(shape, gang, view.changes)
    if result is None:
        # A faithful refusal says whether the complete search would place it.
        result = session.place(gang, view.snapshot(topology), snapshots, policy=policy.name, key=record.id)
        if isinstance(result, Unschedulable):
            refusals.remember(shape, gang, result, view.changes)
    if isinstance(result, Unschedulable):
        explain(state, view, out, record, unschedulable_to_json(result), searching=result.searching)
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
