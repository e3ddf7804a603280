"""Topology-aware preemption: whole lower-priority gangs are evicted so a gang fits inside its
required domain, losing the fewest GPU-hours, checked against brute force on small clusters.

Hand-made cluster (the scheduler tests' one, 2 GPUs a node):

    b1 ── r1 ── x1  x2  x3
       └─ r2 ── x4
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from builders import GPU, node
from toposched.engine import place
from toposched.model import Cluster, ConflictError, Placement, Search
from toposched.scheduler import Contender, ManualClock, Scheduler, SchedulerConfig, contention
from toposched.scheduler.explaining import workload_pods
from toposched.scheduler.outcome import HOLDING
from toposched.store import MemoryStore, WorkloadState

from .conftest import TOPOLOGY, Env, cluster_nodes, job

PREEMPTING = SchedulerConfig(gpu_resource=GPU, reservations=False)
QUIET = SchedulerConfig(gpu_resource=GPU, reservations=False, preemption=False)


def test_evicts_the_cheapest_whole_gang_inside_the_required_rack() -> None:
    env = Env(config=PREEMPTING)
    old = env.submit(job("old", 2))  # 2 GPUs of r1, running since t=1000
    env.sched.cycle()
    env.clock.advance(100)
    young = env.submit(job("young", 2))  # 2 more of r1 from t=1100: costs 2 x 900 s at t=2000
    env.sched.cycle()
    lone = env.submit(job("lone", 2))  # r2, from t=1100
    env.sched.cycle()
    assert {env.sched.get(w).state for w in (old, young, lone)} == {WorkloadState.ADMITTED}
    env.clock.advance(900)
    # 4 GPUs in one rack: only r1 can hold them, where 2 are free; evicting young loses least.
    urgent = env.submit(job("urgent", 4), priority=5)
    report = env.sched.cycle()
    assert report.admitted == (urgent,) and report.evicted == (young,)
    assert set(env.nodes_of(urgent).values()) <= {"x1", "x2", "x3"}
    victim = env.sched.get(young)
    assert victim.state is WorkloadState.PENDING and env.store.reservations(young) == {}
    assert victim.explanation["preemptedBy"] == urgent
    assert "preempted by default/urgent" in victim.explanation["reason"]
    assert "priority 0 < 5" in victim.explanation["reason"]
    winner = env.sched.get(urgent)
    assert winner.explanation["preempted"] == [young]
    assert winner.explanation["gpuHoursLost"] == 0.5  # 2 GPUs x 900 s
    admitted = [e for e in env.store.list_events(workload=urgent) if e.type == "admitted"]
    assert admitted[-1].data["preempted"] == [young]
    evicted = [e for e in env.store.list_events(workload=young) if e.type == "evicted"]
    assert evicted[-1].data == {"preemptedBy": urgent, "domain": "b1/r1", "why": "priority 0 < 5"}
    with pytest.raises(
        ConflictError, match=rf"after preempting workload\(s\) {young} \(0.50 GPU-hours lost\)"
    ):
        env.sched.explain(urgent)
    # Still waiting after its next attempt, the victim's explanation still says who preempted it.
    env.clock.advance(120)
    assert young in env.sched.cycle().unschedulable
    again = env.sched.get(young).explanation
    assert again["preemptedBy"] == urgent and again["preemption"] == victim.explanation["reason"]
    assert again["reason"] != victim.explanation["reason"]  # the refusal of this attempt


def test_equal_priority_never_preempts() -> None:
    env = Env(config=PREEMPTING)
    env.submit(job("a", 6))
    env.sched.cycle()
    late = env.submit(job("b", 4))
    report = env.sched.cycle()
    assert report.evicted == () and report.unschedulable == (late,)


def test_preemption_can_be_turned_off() -> None:
    env = Env(config=QUIET)
    env.submit(job("a", 6))
    env.sched.cycle()
    urgent = env.submit(job("b", 4), priority=9)
    report = env.sched.cycle()
    assert report.evicted == () and report.unschedulable == (urgent,)


def test_never_preempts_when_no_victim_set_is_enough() -> None:
    env = Env(config=PREEMPTING)
    env.submit(job("low", 2, required="example.com/rack"))
    env.sched.cycle()
    too_big = env.submit(job("huge", 7), priority=5)  # no rack has 7 GPUs
    report = env.sched.cycle()
    assert report.evicted == () and report.unschedulable == (too_big,)


# -- brute force on small random clusters ------------------------------------------------------


# Pods, GPUs a pod, rack required, priority, seconds to the next.
Running = tuple[int, int, bool, int, int]


@st.composite
def scenarios(draw: st.DrawFn) -> tuple[list[int], int, list[Running], tuple[int, int, bool]]:
    racks = draw(st.lists(st.integers(1, 3), min_size=2, max_size=3))  # nodes per rack
    gpus = draw(st.sampled_from([2, 4]))
    running = draw(
        st.lists(
            st.tuples(
                st.integers(1, 3), st.integers(1, 2), st.booleans(), st.integers(0, 2), st.integers(0, 900)
            ),
            min_size=2,
            max_size=7,
        )
    )
    preemptor = draw(st.tuples(st.integers(2, 4), st.integers(1, 2), st.booleans()))
    return racks, gpus, running, preemptor


def _set_key(
    ids: Sequence[int], cost: dict[int, float], priority: dict[int, int], admitted: dict[int, float]
) -> tuple[float, int, int, float]:
    return (
        sum(cost[w] for w in ids),
        len(ids),
        max(priority[w] for w in ids),
        -min(admitted[w] for w in ids),
    )


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scenarios())
def test_fewest_gpu_hours_against_brute_force(
    scenario: tuple[list[int], int, list[Running], tuple[int, int, bool]],
) -> None:
    racks, gpus, running, (pods, per_pod, rack_required) = scenario
    store = MemoryStore()
    nodes = [
        node(f"r{r}-n{n}").at(block="b1", rack=f"r{r}").alloc(gpu=gpus, cpu=64).build()
        for r, count in enumerate(racks)
        for n in range(count)
    ]
    store.put_nodes(nodes)
    store.put_topology(TOPOLOGY)
    clock = ManualClock(0.0)
    setup = Scheduler(store, clock, QUIET)
    admitted: dict[int, float] = {}
    for i, (n, g, required, priority, pause) in enumerate(running):
        spec = job(f"run{i}", n, gpu=g, required="example.com/rack" if required else None)
        wid = setup.submit(spec, owner="u", priority=priority).id
        if wid in setup.cycle().admitted:
            admitted[wid] = clock.now()
        else:
            setup.cancel(wid, actor="u")
        clock.advance(pause)
    clock.advance(60)
    sched = Scheduler(store, clock, PREEMPTING)
    spec = job("urgent", pods, gpu=per_pod, required="example.com/rack" if rack_required else None)
    urgent = sched.submit(spec, owner="u", priority=3).id
    gang = sched.compiled(urgent).gang

    holding = store.list_workloads(states=HOLDING)
    booked = store.reservations_by_workload()
    now = clock.now()
    cost = {
        r.id: sum(res.get(GPU, 0) for res in booked[r.id].values()) * (now - admitted[r.id]) for r in holding
    }
    priority = {r.id: r.priority for r in holding}
    best: tuple[float, int, int, float] | None = None
    fits_now = False
    for size in range(len(holding) + 1):
        for chosen in itertools.combinations([r.id for r in holding], size):
            left = [r for r in holding if r.id not in chosen]
            cluster = Cluster(tuple(nodes), tuple(workload_pods(left, booked, None)), (TOPOLOGY,))
            if not isinstance(place(gang, cluster, search=Search.COMPLETE), Placement):
                continue
            if not chosen:
                fits_now = True
                continue
            key = _set_key(chosen, cost, priority, admitted)
            best = key if best is None or key < best else best

    report = sched.cycle()
    for name, used in store.reserved_by_node().items():  # never over-committed
        assert used.get(GPU, 0) <= gpus, name
    event("fits without preemption" if fits_now else "no victim set" if best is None else "preempts")
    if fits_now:
        assert report.admitted == (urgent,) and report.evicted == ()
        return
    if best is None:
        assert report.evicted == () and urgent not in report.admitted
        return
    assert report.admitted == (urgent,)
    assert _set_key(report.evicted, cost, priority, admitted) == best
    for victim in report.evicted:  # whole gangs: back in the queue, nothing of them booked
        assert store.get_workload(victim).state is WorkloadState.PENDING
        assert store.reservations(victim) == {}


def _timed(spec: list[Any], seconds: int) -> list[Any]:
    """``spec`` declaring a run time of ``seconds``."""
    spec[0]["metadata"]["annotations"] = {"toposched.io/run-seconds": str(seconds)}
    return spec


def test_the_domain_named_is_the_one_the_gang_went_to() -> None:
    # Two racks of two 2-GPU nodes. v (3 pods, priority 0) has two GPUs in r1 and one in r2;
    # h and w (priority 9) hold the rest but one GPU in each rack. p needs 2 GPUs in one rack:
    # the search for r1 finds v (its cheapest bound), and with v gone r2 (2 free, against 3 in
    # r1) is the tighter fit, where p goes: the events must name r2, not the rack searched.
    racks = {"a1": "r1", "a2": "r1", "b1": "r2", "b2": "r2"}
    store = MemoryStore()
    store.put_nodes(cluster_nodes(racks))
    store.put_topology(TOPOLOGY)
    e = Env(store, PREEMPTING)

    def only_on(names: set[str]) -> None:
        for name in racks:
            e.sched.cordon(name, name not in names)

    only_on({"a2"})
    e.submit(job("h", 1, required=None), priority=9)
    e.sched.cycle()
    only_on({"b2"})
    e.submit(job("w", 1, gpu=2, required=None), priority=9)
    e.sched.cycle()
    only_on({"a1", "b1"})
    v = e.submit(job("v", 3, required=None))
    e.sched.cycle()
    assert sorted(e.nodes_of(v).values()) == ["a1", "a1", "b1"]
    only_on(set(racks))
    e.clock.advance(100)
    p = e.submit(job("p", 2), priority=5)
    assert e.sched.cycle().evicted == (v,)
    assert set(e.nodes_of(p).values()) == {"b1"}
    assert "admitted in b1/r2 " in e.sched.get(p).explanation["reason"]
    assert "to place it in b1/r2:" in e.store.list_events(workload=v)[-1].message


def test_never_preempts_onto_the_nodes_of_a_reservation() -> None:
    env = Env(config=SchedulerConfig(gpu_resource=GPU))
    env.submit(_timed(job("kept", 6), 100), priority=5)  # r1 until t=1100; nobody may evict it
    low = env.submit(_timed(job("low", 2), 5000), priority=0)  # r2 until t=6000
    env.sched.cycle()
    # The whole cluster, at priority 5: evicting low is not enough, so it reserves all four
    # nodes from t=6000. A gang after it may not preempt low to run on x4 until t=11000.
    whole = env.submit(job("whole", 8, required=None), priority=5)
    late = env.submit(_timed(job("late", 2), 10_000), priority=3)
    report = env.sched.cycle()
    assert report.evicted == () and set(report.unschedulable) == {whole, late}
    reservation = env.sched.get(whole).explanation["reservation"]
    assert (reservation["start"], reservation["nodes"], reservation["waitsFor"]) == (6000.0, 4, [1, low])
    assert env.sched.get(low).state is WorkloadState.ADMITTED


class FirstTwoOnly:
    """A rule as another module plugs one in: only gangs of workload ids below 3 may be evicted,
    whatever their priority."""

    def may_preempt(self, preemptor: Contender, victim: Contender) -> bool:
        return victim.workload < 3

    def reason(self, preemptor: Contender, victim: Contender) -> str:
        return "the rule says so"


def test_a_plugged_in_rule_decides_who_may_be_evicted() -> None:
    env = Env(config=PREEMPTING)
    env.sched = Scheduler(env.store, env.clock, PREEMPTING, preemption_rule=FirstTwoOnly())
    first = env.submit(job("first", 4))  # equal priorities: the default rule would evict nobody
    env.sched.cycle()
    late = env.submit(job("late", 4))
    report = env.sched.cycle()
    assert report.admitted == (late,) and report.evicted == (first,)
    assert env.sched.get(first).explanation["reason"].endswith("the rule says so")


def test_alike_gangs_that_cannot_preempt_cost_one_search(monkeypatch: pytest.MonkeyPatch) -> None:
    env = Env(config=PREEMPTING)
    env.submit(job("low", 2, required="example.com/rack"))  # the only victim: 2 GPUs
    env.sched.cycle()
    searched = []
    real = contention.preemption.plan

    def counted(*args: Any, **kwargs: Any) -> Any:
        searched.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(contention.preemption, "plan", counted)
    many = [env.submit(job(f"big-{i}", 7), priority=5) for i in range(20)]  # no rack holds 7
    report = env.sched.cycle()
    assert set(report.unschedulable) == set(many) and report.evicted == ()
    assert len(searched) == 1


def test_a_cycle_looks_for_a_reservation_for_a_bounded_number_of_gangs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    env = Env(config=SchedulerConfig(gpu_resource=GPU))
    looked = []
    real = contention.reservations.find

    def counted(*args: Any, **kwargs: Any) -> Any:
        looked.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(contention.reservations, "find", counted)
    never = [env.submit(job(f"never-{i}", 7)) for i in range(20)]  # no rack ever holds 7
    report = env.sched.cycle()
    assert set(report.unschedulable) == set(never)
    assert len(looked) == contention.RESERVATION_TRIES
