"""One scheduling cycle (``Scheduler.cycle``): what changed since the last one, node health and
the gangs it moves or evicts (``steps``), then admission (``admission``)."""

from __future__ import annotations

from toposched.scheduler.admission import admit
from toposched.scheduler.outcome import CycleTally
from toposched.scheduler.state import State
from toposched.scheduler.steps import heal
from toposched.scheduler.types import CycleReport
from toposched.scheduler.view import refresh
from toposched.store import WorkloadState


def run_cycle(state: State) -> CycleReport:
    """One pass: node health, replacement or eviction, then admission (see ``steps``). The lock
    is held while reading the cluster and then for one workload at a time; cycles never
    overlap (they share the snapshots kept between cycles)."""
    store = state.store
    with state.cycling:
        with state.lock:  # what changed since the last cycle, written here or by someone else
            view = refresh(state)
            holding = list(view.booked)
        out = CycleTally()
        heal(state, view, out)
        pending = store.queue((WorkloadState.PENDING,))  # after heal: evicted gangs too
        with state.lock:
            state.prune(holding + [w.id for w in pending])
        admit(state, view, out, pending)
        state.health.last_cycle_at = state.clock.now()
    return CycleReport(
        tuple(out.admitted),
        tuple(out.unschedulable),
        tuple(out.evicted),
        tuple(out.replaced),
        tuple(out.searching),
    )
