"""A pending workload explained on the service's state: the admitted workloads' pods charge exactly
their bookings, and "places once ... ends" names them, each suggestion placing when applied."""

from __future__ import annotations

import pytest

from toposched.model import ConflictError, NotFoundError, SuggestionKind
from toposched.scheduler import ManualClock, Scheduler, SchedulerConfig
from toposched.scheduler.explaining import workload_pods
from toposched.snapshot import per_slot_requests
from toposched.store import WorkloadState

from .conftest import Env, job


def test_workload_pods_charge_exactly_what_is_booked(env: Env) -> None:
    placed = env.submit(job("pair", 3, gpu=1))
    env.sched.cycle()
    record = env.sched.get(placed)
    booked = env.store.reservations_by_workload()[placed]
    pods = workload_pods([record], {placed: booked}, viewer=None)
    assert {p.owner for p in pods} == {str(placed)} and len(pods) == 3
    charged: dict[str, dict[str, int]] = {}
    for pod in pods:
        into = charged.setdefault(pod.node, {})
        for resource, amount in per_slot_requests(pod.requests).items():
            into[resource] = into.get(resource, 0) + amount
    assert charged == {node: dict(usage.items()) for node, usage in booked.items()}


def test_pending_workload_names_the_workload_whose_end_lets_it_place(env: Env) -> None:
    first = env.submit(job("first", 3, gpu=2))  # fills rack r1
    waiting = env.submit(job("second", 2, gpu=2))  # needs two nodes of one rack: only r1 has them
    env.sched.cycle()
    explanation = env.sched.explain(waiting)
    after = [s for s in explanation.suggestions if s.kind is SuggestionKind.AFTER_WORKLOADS_END]
    assert [s.ended for s in after] == [(f"workloads/{first}",)]
    assert explanation.level is not None and explanation.candidates
    hidden = env.sched.explain(waiting, viewer="bob")
    assert [s.ended for s in hidden.suggestions if s.kind is SuggestionKind.AFTER_WORKLOADS_END] == [
        ("another-user/1",)
    ]
    # Applying it: once the named workload ends, the next cycle admits the waiting one.
    env.sched.finish(first)
    env.clock.advance(3600)  # past its backoff
    env.sched.cycle()
    assert env.sched.get(waiting).state is WorkloadState.ADMITTED


def test_only_a_pending_workload_is_explained(env: Env) -> None:
    placed = env.submit(job("fits", 1))
    env.sched.cycle()
    with pytest.raises(ConflictError, match="only a pending workload"):
        env.sched.explain(placed)
    with pytest.raises(NotFoundError):
        env.sched.explain(999)


class Ticking(ManualClock):
    """While ``ticking``, every reading moves the clock ``step`` seconds on, as slow searches would."""

    def __init__(self, start: float, step: float) -> None:
        super().__init__(start)
        self.step = step
        self.ticking = False

    def now(self) -> float:
        current = super().now()
        if self.ticking:
            self.advance(self.step)
        return current


def test_an_explanation_stops_at_its_time_bound_on_the_injected_clock() -> None:
    clock = Ticking(1000.0, step=10.0)
    env = Env(config=SchedulerConfig(explain_seconds=5.0))
    env.clock = clock
    env.sched = Scheduler(env.store, clock, env.sched.config, search_clock=clock)  # it bounds searches
    env.submit(job("first", 3, gpu=2))  # fills rack r1
    waiting = env.submit(job("second", 2, gpu=2))
    env.sched.cycle()
    unhurried = env.sched.explain(waiting)
    assert SuggestionKind.AFTER_WORKLOADS_END in {s.kind for s in unhurried.suggestions}
    clock.ticking = True  # every search step and suggestion now takes 10 s of the 5 s allowed
    hurried = env.sched.explain(waiting)
    assert SuggestionKind.AFTER_WORKLOADS_END not in {s.kind for s in hurried.suggestions}
    assert SuggestionKind.AFTER_WORKLOADS_END in hurried.untried
    assert hurried.candidates == unhurried.candidates  # the facts are there whatever the time
    assert unhurried.untried == ()
