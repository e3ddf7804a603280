"""Step 3 of the cycle, admission: pending gangs by effective priority (high first; priority
rises with the wait, ``aging``), then arrival; each placed all-or-nothing on the cycle's view and
its booking queued with the cycle's other decisions (stored a run at a time, see ``outcome``);
failures wait out a backoff. A gang that does not fit may preempt lower ones, and the first that
still does not fit reserves where it fits soonest; the gangs after it are placed around that
reservation unless they end before it starts (``contention``).

A refusal is remembered per gang shape until the next change of the cycle's capacity
(``shapes``), so once the cluster is full a queue of many alike gangs asks the engine once per
shape, not once per gang. Each gang is placed in the cycle's round of the loop's placement
session, keyed by its workload: the exact searches of a cycle share the round's time
(``SchedulerConfig.round_seconds``), a search that reaches its share goes on in the next cycle
(the gang is not backed off meanwhile), and a refusal is kept until the cluster or the gang
changes (``toposched.engine.exact.rounds``).
"""

from __future__ import annotations

from toposched.emit.result import placement_to_json, problems_to_json, reason_to_json, unschedulable_to_json
from toposched.engine import usage_of
from toposched.model import Gang, NotFoundError, Placement, SpecError, Topology, Unschedulable
from toposched.scheduler import contention
from toposched.scheduler.kept import topology_key
from toposched.scheduler.outcome import PENDING, CycleTally, explain, flush, fresh, isolate
from toposched.scheduler.queue_cycle import QueueCycle
from toposched.scheduler.reservations import Backfill
from toposched.scheduler.running import Held, stamped
from toposched.scheduler.shapes import Refusals, shape_of
from toposched.scheduler.state import Backoff, State
from toposched.scheduler.types import EventType
from toposched.scheduler.view import CycleView
from toposched.store import Admission, Json, QueueEntry, WorkloadRecord


def admit(state: State, view: CycleView, out: CycleTally, pending: list[QueueEntry]) -> None:
    """Place ``pending`` (the queue read after step 2) in the cycle's order: fair share across
    queues, and within one the aging order (``queue_cycle``, ``aging``), each within its queue's
    quotas, under the lock on a fresh read. Workloads still backing off are not even read (nor
    their queues counted: a cycle in which every gang waits out its backoff does no queue work),
    but the reservation of one (kept from the cycle that made it) still holds."""
    now = state.clock.now()
    ordered = state.ages.order(pending, now, state.config.aging_seconds)
    ready = [e for e in ordered if (wait := state.backoff.get(e.id)) is None or wait.not_before <= now]
    if ready:
        _admit_ready(state, view, out, ready, {e.id for e in ordered} - {e.id for e in ready})
    with state.lock:
        while out.decisions:  # a refused admission queues its explanation
            flush(state, view, out)


def _admit_ready(
    state: State, view: CycleView, out: CycleTally, ready: list[QueueEntry], waiting: set[int]
) -> None:
    """Admit ``ready`` (in the aging order); ``waiting``: the pending gangs backing off."""
    refusals = Refusals()
    state.session.begin_round()
    backfill = Backfill(view, state.config.reservation_depth if state.config.reservations else 0)
    for reservation, topology in state.reservations:
        if reservation.workload in waiting:
            backfill.hold(reservation, topology)  # its reservation stands while it backs off
    queues = QueueCycle.open(state, view.booked, ready)
    searches = contention.Searches(queues.rule(state.rule), queues)
    try:
        for entry in queues.order(ready):
            with state.lock:
                try:
                    current = fresh(state, entry.id, PENDING)
                    if current is not None:  # else cancelled since the list was read
                        _admit_one(state, view, current, out, refusals, (backfill, searches, queues))
                except Exception as exc:  # one broken workload must not stop the cycle
                    isolate(state, view, out, entry.id, PENDING, "admission failed", exc)
    finally:
        backfill.release()
    state.reservations = backfill.kept()
    _retry_at_reservations(state)


def _retry_at_reservations(state: State) -> None:
    """A gang holding a reservation is tried again at its start at the latest: a backoff (up to
    ``backoff_max_seconds``) ending after it would leave the nodes kept for it idle meanwhile."""
    now = state.clock.now()
    for reservation, _ in state.reservations:
        wait = state.backoff.get(reservation.workload)
        if wait is not None and wait.not_before > reservation.start:
            state.backoff[reservation.workload] = Backoff(wait.attempts, max(reservation.start, now))


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
    state: State,
    view: CycleView,
    record: WorkloadRecord,
    out: CycleTally,
    refusals: Refusals,
    contending: tuple[Backfill, contention.Searches, QueueCycle],
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
    backfill, searches, queues = contending
    waits = queues.refusal(record.id, gang, record.priority)
    # The borrowed gangs to reclaim for its guaranteed quota are evicted only as it is admitted
    # (Kueue preempts only for a workload that then fits): a gang that would still not fit
    # evicts nobody, so they are not evicted and readmitted cycle after cycle.
    reclaim = queues.reclaims.pop(record.id, []) if state.config.preemption else []
    if waits is not None and not reclaim:
        if record.id in queues.crowded and state.config.quota_reservations:
            waits = _reserve_while_crowded(
                state, view, record, gang, topology, policy.name, backfill, searches, waits
            )
        explain(state, view, out, record, waits)
        return
    admitting = (backfill, searches, queues, reclaim)
    try:
        named = state.topologies_named(gang, record)
        snapshots = {t.name: view.snapshot(t) for t in named}
    except NotFoundError as exc:
        explain(state, view, out, record, reason_to_json(str(exc)))
        return
    shape = shape_of(gang, [topology_key(t) for t in (topology, *named)], policy.name)
    now, run_seconds = state.clock.now(), state.run_seconds_of(gang)
    result: Placement | Unschedulable | None = None
    if backfill.may_use(now, run_seconds):  # it ends before a reservation starts
        with backfill.lifted(now, run_seconds):
            result = session.place(
                gang, view.snapshot(topology), snapshots, policy=policy.name, key=record.id
            )
            if isinstance(result, Placement):
                _book(state, view, out, record, gang, topology, result, run_seconds, admitting)
                return
    if result is None:
        result = refusals.get(shape, gang, view.changes)
    if result is None:
        # A faithful refusal says whether the complete search would place it.
        result = session.place(gang, view.snapshot(topology), snapshots, policy=policy.name, key=record.id)
        if isinstance(result, Unschedulable):
            refusals.remember(shape, gang, result, view.changes)
    if isinstance(result, Placement):
        _book(state, view, out, record, gang, topology, result, run_seconds, admitting)
        return
    explanation = unschedulable_to_json(result)
    contention.keep_preemption(record.explanation, explanation)
    if not result.searching:
        keep = backfill.kept_from(now, run_seconds)
        chances = (backfill, keep, searches, shape, reclaim)
        if contention.contend(state, view, out, record, gang, topology, snapshots, policy.name, *chances):
            return
        if waits is not None:  # short of quota as well as of room
            explanation = {**waits, "placement": explanation}
        made = backfill.of(record.id)
        if made is not None:
            explanation["reservation"] = contention.reservation_to_json(made)
    explain(state, view, out, record, explanation, searching=result.searching)


def _book(
    state: State,
    view: CycleView,
    out: CycleTally,
    record: WorkloadRecord,
    gang: Gang,
    topology: Topology,
    result: Placement,
    run_seconds: float,
    admitting: tuple[Backfill, contention.Searches, QueueCycle, list[int]],
) -> None:
    """Queue the admission of ``record`` with ``result``, charged on the view at once, after
    evicting the borrowed gangs its queue reclaims for it."""
    _, searches, queues, reclaim = admitting
    if reclaim:
        contention.reclaim(state, view, out, record, gang, reclaim, searches)
    usage = usage_of(result, gang)
    nodes = sorted(usage)
    message = f"admitted on {len(nodes)} node(s) of topology {topology.name}"
    if result.note:
        message += f" ({result.note})"
    event = state.event(EventType.ADMITTED, message, record.id, {"nodes": nodes})
    now = state.clock.now()
    held = Held(state.rank_of(record), now, run_seconds)
    view.charge(record.id, usage, held)  # the gangs after it go around it
    queues.admitted(record.id, usage)
    out.waiting[record.id] = record
    placement = stamped(placement_to_json(result), held)
    out.queue(state, view, Admission(record.id, placement, usage, event), len(result.pods))


def _reserve_while_crowded(
    state: State,
    view: CycleView,
    record: WorkloadRecord,
    gang: Gang,
    topology: Topology,
    policy: str,
    backfill: Backfill,
    searches: contention.Searches,
    waits: dict[str, Json],
) -> dict[str, Json]:
    """A gang refused only because the queues of its tree leave too little unused waits for
    capacity they hold, as a gang refused for room does: it reserves where it fits soonest,
    so the smaller gangs after it cannot take that capacity as it frees (without this a wide
    gang waits for quota while narrower ones keep passing it). ``waits``, with the reservation
    when one is made."""
    try:
        snapshots = {t.name: view.snapshot(t) for t in state.topologies_named(gang, record)}
    except NotFoundError:
        return waits  # its own placement attempt reports the missing topology
    made = contention.reserve(state, view, record, gang, topology, snapshots, policy, backfill, searches)
    return waits if made is None else {**waits, "reservation": contention.reservation_to_json(made)}
