"""What a cycle decided, and how its decisions reach the store.

The cycle queues its decisions (``Admission``: book a placement; ``Note``: why a workload waits)
in ``CycleTally.decisions`` and stores a run of them in one transaction (``flush``): one fsync for
many workloads, with the event log still in cycle order. A queued admission is charged on the
cycle's view at once, so the workloads after it are placed around it; the bookkeeping of an
admission (``CycleTally.admitted``, the workload's memory) happens once the store has it. An
admission the store refuses (cancelled meanwhile, or capacity booked by someone else) is given
back to the view and explained like any refusal.

An unexpected failure of one workload is confined to it: it is marked broken and backed off
(``isolate``), and the cycle goes on with the others.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

from toposched.emit.result import reason_to_json
from toposched.model import ConflictError, NotFoundError
from toposched.scheduler.state import Backoff, State
from toposched.scheduler.types import EventType
from toposched.scheduler.view import CycleView
from toposched.store import Admission, Decision, Json, Note, WorkloadRecord, WorkloadState

log = logging.getLogger(__name__)

HOLDING = (WorkloadState.ADMITTED, WorkloadState.RUNNING)
PENDING = (WorkloadState.PENDING,)

# Most decisions, and most admitted pods, one transaction writes: bounds how long it holds the
# store's write lock (submissions wait for it) while still sharing one fsync among many.
DECISIONS_PER_WRITE = 256
PODS_PER_WRITE = 2048


@dataclass(slots=True)
class CycleTally:
    """Workload ids per result, collected while the cycle runs, and the decisions not stored yet."""

    admitted: list[int] = field(default_factory=list)
    unschedulable: list[int] = field(default_factory=list)
    searching: list[int] = field(default_factory=list)  # refused for now: their search goes on
    evicted: list[int] = field(default_factory=list)
    replaced: list[int] = field(default_factory=list)
    decisions: list[Decision] = field(default_factory=list)
    waiting: dict[int, WorkloadRecord] = field(default_factory=dict)  # queued admissions, as read
    pods: int = 0  # pods the queued admissions place

    def queue(self, state: State, view: CycleView, decision: Decision, pods: int = 0) -> None:
        """Queue ``decision`` (an admission of ``pods`` pods); a full run is stored at once."""
        self.decisions.append(decision)
        self.pods += pods
        if len(self.decisions) >= DECISIONS_PER_WRITE or self.pods >= PODS_PER_WRITE:
            flush(state, view, self)


def flush(state: State, view: CycleView, out: CycleTally) -> None:
    """Store the queued decisions in one transaction. When that fails, each is retried alone, so
    a decision the store cannot take is confined to its workload."""
    decisions, out.decisions, out.pods = out.decisions, [], 0
    if not decisions:
        return
    try:
        refused = state.store.write_decisions(decisions)
    except Exception as exc:
        if len(decisions) == 1:
            _not_stored(state, view, out, decisions[0], exc)
            return
        for decision in decisions:
            out.decisions.append(decision)
            flush(state, view, out)
        return
    for decision in decisions:
        if isinstance(decision, Admission):
            try:
                _stored(state, view, out, decision.workload, refused.get(decision.workload))
            except Exception as exc:  # e.g. the store cannot be read after a refusal
                isolate(state, view, out, decision.workload, PENDING, "admission failed", exc)


def _stored(
    state: State, view: CycleView, out: CycleTally, workload: int, refusal: ConflictError | None
) -> None:
    record = out.waiting.pop(workload)
    if refusal is None:
        state.tracker.clear(workload)
        state.backoff.pop(workload, None)
        state.reported.pop(workload, None)
        state.health.broken.pop(workload, None)
        out.admitted.append(workload)
        return
    view.release(workload)
    if state.store.get_workload(workload).state is not WorkloadState.PENDING:
        return  # cancelled or admitted elsewhere meanwhile
    explain(state, view, out, record, reason_to_json(str(refusal)))


def _not_stored(state: State, view: CycleView, out: CycleTally, decision: Decision, exc: Exception) -> None:
    if isinstance(decision, Admission):
        out.waiting.pop(decision.workload, None)
        view.release(decision.workload)
        isolate(state, view, out, decision.workload, PENDING, "admission failed", exc)
        return
    # Its reason counts as unreported, so the next attempt writes it again.
    if decision.event is not None and state.reported.get(decision.workload) == decision.event.message:
        del state.reported[decision.workload]
    log.error("could not store why workload %s waits", decision.workload, exc_info=exc)


def explain(
    state: State,
    view: CycleView,
    out: CycleTally,
    record: WorkloadRecord,
    explanation: dict[str, Json],
    kind: EventType = EventType.UNSCHEDULABLE,
    *,
    searching: bool = False,
) -> None:
    """A workload stays pending: explain, log an event when the reason changed, and back off
    (base, doubled, capped), unless its complete search is still ``searching``: then the next
    cycle goes on with it. The explanation and event are queued with the other decisions."""
    if searching:
        state.backoff.pop(record.id, None)
        out.searching.append(record.id)
    else:
        back_off(state, record.id)
    state.health.broken.pop(record.id, None)  # it failed in an ordinary way this time
    reason = str(explanation.get("reason", ""))
    event = None
    if state.reported.get(record.id) != reason:
        event = state.event(kind, reason, record.id, explanation)
        state.reported[record.id] = reason
    out.unschedulable.append(record.id)
    if event is not None or record.explanation != explanation:  # unchanged: no write at all
        out.queue(state, view, Note(record.id, explanation, event))


def fresh(state: State, workload_id: int, states: tuple[WorkloadState, ...]) -> WorkloadRecord | None:
    """The workload as stored now, or None when it left ``states`` since it was listed."""
    try:
        record = state.store.get_workload(workload_id)
    except NotFoundError:
        return None
    return record if record.state in states else None


def isolate(
    state: State,
    view: CycleView,
    out: CycleTally,
    workload: int,
    states: tuple[WorkloadState, ...],
    what: str,
    exc: Exception,
) -> None:
    """Confine an unexpected failure to its workload: unless the workload left ``states``
    meanwhile (a cancel or finish takes no lock), it is marked broken. Never raises, so the
    cycle goes on with the others."""
    try:
        if fresh(state, workload, states) is None:
            return
        flush(state, view, out)  # keeps the event log in cycle order
    except Exception:
        log.exception("could not record the failure of workload %s", workload)
    mark_broken(state, workload, f"{what}: {type(exc).__name__}: {exc}", exc)


def mark_broken(state: State, workload: int, reason: str, exc: Exception | None = None) -> None:
    """Back the workload off and record why it failed (explanation, an event and the health
    report), logging the traceback only when the reason is new; never raises."""
    back_off(state, workload)
    state.health.broken[workload] = reason
    if state.reported.get(workload) == reason:
        return  # already recorded: retried after its backoff without filling the log
    log.error("workload %s is broken: %s", workload, reason, exc_info=exc)
    try:
        state.store.set_explanation(workload, reason_to_json(reason, broken=True))
        state.store.append_event(state.event(EventType.INVALID, reason, workload))
        state.reported[workload] = reason
    except Exception:
        log.exception("could not record the failure of workload %s", workload)


# Doublings after which every delay is the maximum: 2**64 times any base beyond a sane maximum.
_MAX_DOUBLINGS = 64


def back_off(state: State, workload: int) -> None:
    """Skip the workload for base * 2**(attempts - 1) seconds, at most the configured maximum.
    The exponent is capped first, so no number of attempts can overflow the delay."""
    config = state.config
    previous = state.backoff.get(workload)
    attempts = previous.attempts + 1 if previous is not None else 1
    doublings = min(attempts - 1, _MAX_DOUBLINGS)
    delay = min(config.backoff_base_seconds * 2.0**doublings, config.backoff_max_seconds)
    state.backoff[workload] = Backoff(attempts, state.clock.now() + delay)
