"""What admission does for a gang that does not fit: preempt lower gangs for it (``preemption``),
else, for the first such gang of the cycle, reserve where it fits soonest (``reservations``);
and how the gangs after a reservation are placed around it (``Backfill``).

A preemption is carried out at once: each victim goes back to the queue (same arrival order,
spec intact) with an event and an explanation naming the gang that preempted it and why, its
booking is given back to the view, and the preemptor is admitted with the placement the trial
found, its event and stored explanation naming the victims and the GPU-hours they lost.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Protocol

from toposched.emit.result import placement_to_json, reason_to_json
from toposched.engine import usage_of
from toposched.model import Gang, Resources, Topology
from toposched.scheduler import preemption, reservations
from toposched.scheduler.outcome import CycleTally, flush
from toposched.scheduler.preemption import Candidates, Contender, Plan, PreemptionRule
from toposched.scheduler.reservations import Backfill, Reservation
from toposched.scheduler.running import Held, stamped
from toposched.scheduler.state import State
from toposched.scheduler.trials import Ask
from toposched.scheduler.types import EventType
from toposched.scheduler.view import CycleView
from toposched.snapshot import Snapshot
from toposched.store import Admission, Json, WorkloadRecord

CYCLE_SECONDS = 5.0  # the preemption searches of one cycle, together (search clock)
RESERVATION_TRIES = 8  # refused gangs of a cycle that may look for a reservation and find none


class QueueLedger(Protocol):
    """The cycle's queue accounts, told of admissions and evictions as they happen."""

    def admitted(self, workload: int, usage: Mapping[str, Resources]) -> None: ...

    def released(self, workload: int) -> None: ...

    def still_borrowed(self, workload: int, gang: Gang, before: Sequence[int]) -> Sequence[int]: ...

    def evictable_together(self, workload: int, victims: Sequence[int]) -> bool: ...


@dataclass(slots=True)
class Searches:
    """The preemption searches of one cycle: they share ``CYCLE_SECONDS`` from the first, and a
    search that found no victim set is not run again for a gang of the same shape, priority and
    queue until the cycle's view changes (the engine is deterministic: the answer would be the
    same). So a queue of many alike gangs that cannot preempt costs one search, not one each.
    Refused gangs look for a reservation until the cycle holds ``reservation_depth`` of them,
    ``RESERVATION_TRIES`` looked and found none (as Slurm's backfill tests a bounded number of
    jobs: a gang that fits nowhere, ever, gets none) or their searches used ``CYCLE_SECONDS``."""

    rule: PreemptionRule  # which gangs a gang may evict this cycle (``QueueCycle.rule``)
    ledger: QueueLedger | None = None  # the cycle's queue accounts
    until: float | None = None
    failed: set[Hashable] = field(default_factory=set)
    reservation_tries: int = 0
    reserve_until: float | None = None  # the reservation searches share CYCLE_SECONDS too


def contend(
    state: State,
    view: CycleView,
    out: CycleTally,
    record: WorkloadRecord,
    gang: Gang,
    topology: Topology,
    snapshots: Mapping[str, Snapshot],
    policy: str,
    backfill: Backfill,
    reserved: frozenset[str],
    searches: Searches,
    shape: Hashable,
    borrowed: Sequence[int] = (),
) -> bool:
    """For a gang the cycle refused: preempt for it (True: it was admitted so), else reserve
    for it while the cycle may hold more reservations (``backfill.of`` then names it).
    ``reserved``: the nodes of the cycle's reservations it may not use; ``shape``: the gang's
    (``shapes.shape_of``); ``borrowed``: gangs its queue reclaims, evicted too if it
    is admitted."""
    config, snapshot, clock = state.config, view.snapshot(topology), state.session.clock
    alike = (shape, record.priority, gang.queue, reserved, view.changes)
    if config.preemption and alike not in searches.failed:
        if searches.until is None:
            searches.until = clock() + CYCLE_SECONDS
        seconds = min(preemption.SECONDS, searches.until - clock())
        if seconds > 0:
            ask = ask_for(state, gang, snapshot, snapshots, policy, preemption.MAX_TRIALS, seconds)
            if _preempt(state, view, out, record, gang, topology, ask, searches, reserved, borrowed):
                return True
            if not ask.spent:  # a whole answer: no victim set places it
                searches.failed.add(alike)
    reserve(state, view, record, gang, topology, snapshots, policy, backfill, searches)
    return False


def reserve(
    state: State,
    view: CycleView,
    record: WorkloadRecord,
    gang: Gang,
    topology: Topology,
    snapshots: Mapping[str, Snapshot],
    policy: str,
    backfill: Backfill,
    searches: Searches,
) -> Reservation | None:
    """Reserve where a refused gang fits soonest, while the cycle may hold more reservations
    and has not used up its tries nor ``CYCLE_SECONDS`` of them (``Searches``); the
    reservation, or None."""
    if backfill.full or searches.reservation_tries >= RESERVATION_TRIES:
        return None
    clock = state.session.clock
    if searches.reserve_until is None:
        searches.reserve_until = clock() + CYCLE_SECONDS
    seconds = min(reservations.SECONDS, searches.reserve_until - clock())
    if seconds <= 0:
        return None
    snapshot = view.snapshot(topology)
    ask = ask_for(state, gang, snapshot, snapshots, policy, reservations.MAX_TRIALS, seconds)
    found = _reserve(state, view, record, backfill, ask, topology)
    if found is None:
        searches.reservation_tries += 1
    return found


def ask_for(
    state: State,
    gang: Gang,
    snapshot: Snapshot,
    snapshots: Mapping[str, Snapshot],
    policy: str,
    trials: int,
    seconds: float,
) -> Ask:
    """The trials of one decision for ``gang``, on the cycle's session."""
    session = state.session
    return Ask(gang, snapshot, snapshots, policy, session, trials, session.clock() + seconds)


def _preempt(
    state: State,
    view: CycleView,
    out: CycleTally,
    record: WorkloadRecord,
    gang: Gang,
    topology: Topology,
    ask: Ask,
    searches: Searches,
    reserved: frozenset[str] = frozenset(),
    borrowed: Sequence[int] = (),
) -> bool:
    """Preempt for ``record`` when a victim set lets it place; True when it was admitted so.
    ``reserved``: the nodes of a reservation it may not use, whose victims' capacity stays kept."""
    rule, booked = searches.rule, view.booked
    ask.reserved, ask.booked = reserved, booked
    preemptor = Contender(record.id, record.priority, gang)
    fresh = {*out.waiting, *out.admitted}  # admitted by this cycle: never its victims
    allowed = [
        w
        for w, held in view.holding.held.items()
        if w != record.id
        and w not in fresh
        and w in booked
        and rule.may_preempt(preemptor, _contender(state, w, held))
    ]
    if not allowed:
        return False
    together = partial(searches.ledger.evictable_together, record.id) if searches.ledger is not None else None
    candidates = Candidates(
        booked, view.holding.held, allowed, state.clock.now(), state.config.gpu_resource, together
    )
    found = preemption.plan(ask, candidates)
    if found is None:
        return False
    _carry_out(state, view, out, record, gang, topology, found, preemptor, searches, borrowed)
    return True


def _carry_out(
    state: State,
    view: CycleView,
    out: CycleTally,
    record: WorkloadRecord,
    gang: Gang,
    topology: Topology,
    found: Plan,
    preemptor: Contender,
    searches: Searches,
    borrowed: Sequence[int] = (),
) -> None:
    flush(state, view, out)  # the event log stays in cycle order
    who = _who(record, gang)
    for victim in found.victims:
        why = searches.rule.reason(
            preemptor, _contender(state, victim.workload, view.holding.held[victim.workload])
        )
        reason = f"preempted by {who} to place it in {found.domain}: {why}"
        data: Json = {"preemptedBy": record.id, "domain": found.domain, "why": why}
        _evict(state, view, out, victim.workload, reason, data, searches.ledger)
    ids = [v.workload for v in found.victims]
    if borrowed and searches.ledger is not None:  # what the victims gave back may be enough
        borrowed = searches.ledger.still_borrowed(record.id, gang, borrowed)
    ids += reclaim(state, view, out, record, gang, borrowed, searches)
    lost = f"{found.gpu_hours:.2f} GPU-hours"
    message = (
        f"admitted in {found.domain} of topology {topology.name} after preempting workload(s) "
        + ", ".join(map(str, ids))
        + f" ({lost} lost)"
    )
    usage = usage_of(found.placement, gang)
    now = state.clock.now()
    run_seconds = state.run_seconds_of(gang)
    event = state.event(EventType.ADMITTED, message, record.id, {"nodes": sorted(usage), "preempted": ids})
    held = Held(state.rank_of(record), now, run_seconds)
    view.charge(record.id, usage, held)
    if searches.ledger is not None:
        searches.ledger.admitted(record.id, usage)
    out.waiting[record.id] = record
    placement = stamped(placement_to_json(found.placement), held)
    out.queue(state, view, Admission(record.id, placement, usage, event), len(found.placement.pods))
    flush(state, view, out)
    if record.id in out.admitted:
        explanation = reason_to_json(message, preempted=ids, gpuHoursLost=round(found.gpu_hours, 6))
        state.store.set_explanation(record.id, explanation)


def reclaim(
    state: State,
    view: CycleView,
    out: CycleTally,
    record: WorkloadRecord,
    gang: Gang,
    victims: Sequence[int],
    searches: Searches,
) -> list[int]:
    """Evict the borrowed gangs ``victims`` so that ``record``'s queue gets its guaranteed
    quota back (Kueue's reclaim); the gangs this cycle admitted are spared. Returns the evicted."""
    fresh = {*out.waiting, *out.admitted}
    evicted = [w for w in victims if w not in fresh and w in view.holding.held]
    if not evicted:
        return []
    flush(state, view, out)  # the event log stays in cycle order
    preemptor = Contender(record.id, record.priority, gang)
    for workload in evicted:
        why = searches.rule.reason(preemptor, _contender(state, workload, view.holding.held[workload]))
        reason = f"evicted for the quota of {_who(record, gang)}: {why}"
        _evict(state, view, out, workload, reason, {"preemptedBy": record.id, "why": why}, searches.ledger)
    return evicted


def _who(record: WorkloadRecord, gang: Gang) -> str:
    return f"{gang.namespace}/{gang.name} (workload {record.id}, priority {record.priority})"


def _evict(
    state: State,
    view: CycleView,
    out: CycleTally,
    workload: int,
    reason: str,
    data: Json,
    ledger: QueueLedger | None,
) -> None:
    """Send a preempted gang back to its queue (same arrival order, spec intact), saying why."""
    state.store.requeue(workload, state.event(EventType.EVICTED, reason, workload, data))
    explanation = reason_to_json(reason, preemptedBy=data["preemptedBy"], preemption=reason)
    state.store.set_explanation(workload, explanation)
    view.release(workload)
    if ledger is not None:
        ledger.released(workload)
    state.tracker.clear(workload)
    state.backoff.pop(workload, None)
    state.reported.pop(workload, None)
    out.evicted.append(workload)


def _reserve(
    state: State, view: CycleView, record: WorkloadRecord, backfill: Backfill, ask: Ask, topology: Topology
) -> Reservation | None:
    """Reserve for ``record`` (a refused gang of the cycle, while the cycle may hold more
    reservations) where it fits soonest, on nodes no earlier reservation keeps: what the gangs
    there give back stays theirs."""
    ask.reserved, ask.booked = backfill.nodes, view.booked
    found = reservations.find(
        ask,
        record.id,
        view.booked,
        view.holding.held,
        state.clock.now(),
        state.config.default_run_seconds,
        state.config.gpu_resource,
    )
    if found is None:
        return None
    backfill.hold(found, topology)
    return found


def keep_preemption(before: Json, explanation: dict[str, Json]) -> None:
    """A preempted gang still waiting keeps, in each new explanation, who preempted it and why
    (``preemptedBy``, ``preemption``: the reason it was evicted with) until it is admitted."""
    if isinstance(before, Mapping) and "preemptedBy" in before:
        explanation["preemptedBy"] = before["preemptedBy"]
        explanation["preemption"] = before.get("preemption", before.get("reason"))


def reservation_to_json(reservation: Reservation) -> dict[str, Json]:
    """What the explanation says of a gang's reservation (clock times only: an unchanged
    reservation leaves the stored explanation unchanged, and unwritten)."""
    return {
        "domain": reservation.domain,
        "start": reservation.start,
        "nodes": len(reservation.nodes),
        "waitsFor": list(reservation.waits_for),
    }


def _contender(state: State, workload: int, held: Held) -> Contender:
    cached = state.gangs.get(workload)
    return Contender(workload, held.priority, cached[1] if cached is not None else None)
