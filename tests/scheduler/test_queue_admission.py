"""Queues in the cycle: a gang is admitted only within its queue's quotas (borrowing what idle
siblings leave, never past a limit), a queue that needs its guarantee back names the borrowed
gangs to reclaim, the order across queues is fair-share, and fair shares converge to the
weights on a steady trace. Usage is derived from bookings, so it is the same after a restart.

One rack of four nodes with 4 GPUs each (16 GPUs):

    org ── a (8 GPU, limit 12)
        └─ b (8 GPU)
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from builders import GPU, node
from toposched.intake.parse import parse_documents
from toposched.model import Resources, SchedulingQueue
from toposched.scheduler import Scheduler, SchedulerConfig
from toposched.scheduler.queue_cycle import QueueCycle
from toposched.store import SqliteStore, Store, WorkloadState

from .conftest import TOPOLOGY, Env, job

NODES = [node(f"n{i}").at(block="b1", rack="r1").alloc(gpu=4, cpu=64).build() for i in range(4)]


def queued_job(name: str, queue: str, gpus: int, pods: int = 1) -> list[Any]:
    """A Kueue batch Job on LocalQueue ``queue`` (namespace default): ``pods`` pods of ``gpus``."""
    return parse_documents(
        f"""apiVersion: batch/v1
kind: Job
metadata:
  name: {name}
  labels:
    kueue.x-k8s.io/queue-name: {queue}
spec:
  parallelism: {pods}
  completions: {pods}
  template:
    spec:
      containers:
      - name: main
        image: busybox
        resources:
          requests:
            {GPU}: "{gpus}"
""",
        source="spec",
    )


def env(
    store: Store | None = None,
    queues: list[dict[str, Any]] | None = None,
    config: SchedulerConfig | None = None,
) -> Env:
    made = Env(store, config, seed=False)
    made.store.put_nodes(NODES)
    made.store.put_topology(TOPOLOGY)
    for spec in queues if queues is not None else TEAMS:
        made.store.put_queue(SchedulingQueue.parse(spec))
    return made


TEAMS: list[dict[str, Any]] = [
    {"name": "org"},
    {"name": "a", "parent": "org", "guaranteed": {GPU: 8}, "limit": {GPU: 12}, "localQueues": ["default/qa"]},
    {"name": "b", "parent": "org", "guaranteed": {GPU: 8}, "localQueues": ["default/qb"]},
]


def status(sched: Scheduler) -> dict[str, tuple[int, int, int, int]]:
    """Per queue: GPUs used, GPUs borrowed, gangs pending, gangs admitted."""
    return {s.queue.name: (s.usage[GPU], s.borrowed[GPU], s.pending, s.admitted) for s in sched.queues()}


def test_borrow_from_an_idle_sibling_up_to_the_limit() -> None:
    e = env()
    ids = [e.submit(queued_job(f"a{i}", "qa", 4)) for i in range(4)]
    report = e.sched.cycle()
    # 8 guaranteed + 4 borrowed from idle b = 12, a's limit: the fourth gang waits.
    assert report.admitted == tuple(ids[:3])
    waiting = e.sched.get(ids[3])
    assert waiting.state is WorkloadState.PENDING
    assert (
        "waits for quota" in waiting.explanation["reason"] and "limit of 12" in waiting.explanation["reason"]
    )
    assert waiting.explanation["queue"] == "a"
    assert status(e.sched)["a"] == (12, 4, 1, 3)
    assert status(e.sched)["org"] == (12, 0, 0, 0)


def test_reclaim_evicts_the_borrowed_gang_when_the_owner_needs_its_guarantee_back() -> None:
    e = env()
    a_ids = [e.submit(queued_job(f"a{i}", "qa", 4)) for i in range(3)]
    e.sched.cycle()
    b_id = e.submit(queued_job("b0", "qb", 4, pods=2))  # two pods of 4: within b's 8
    e.clock.advance(100)
    report = e.sched.cycle()
    # org: a uses 12 of 16, b asks 8: 4 short; a borrowed 4, so one of its 4-GPU gangs goes:
    # the preemption plan's (equal loss, equal admission: the lowest workload id), which also
    # gives the quota back, so no other is reclaimed.
    assert report.evicted == (a_ids[0],) and report.admitted == (b_id,)
    evicted = e.sched.get(a_ids[0])
    assert evicted.state is WorkloadState.PENDING
    assert evicted.explanation["preemptedBy"] == b_id and "borrowed" in evicted.explanation["reason"]
    assert status(e.sched)["a"][0] == 8 and status(e.sched)["b"][0] == 8


def test_a_reclaim_that_would_not_let_the_gang_fit_evicts_nobody() -> None:
    # b asks one pod of 8 GPUs: within its guarantee, but no node has 8. Evicting a's borrowed
    # gang would not place it, so none is evicted (before, one was evicted and readmitted
    # every cycle).
    e = env()
    a_ids = [e.submit(queued_job(f"a{i}", "qa", 4)) for i in range(3)]
    e.sched.cycle()
    b_id = e.submit(queued_job("b0", "qb", 8))
    for _ in range(3):
        e.clock.advance(100)
        report = e.sched.cycle()
        assert report.evicted == () and b_id not in report.admitted
    assert all(e.sched.get(a).state is WorkloadState.ADMITTED for a in a_ids)
    explanation = e.sched.get(b_id).explanation
    assert explanation["reclaim"] == [a_ids[2]] and "placement" in explanation


@pytest.mark.parametrize("on", [False, True])
def test_a_gang_refused_for_what_its_tree_holds_reserves_when_quota_reservations_are_on(on: bool) -> None:
    e = env(config=SchedulerConfig(gpu_resource=GPU, quota_reservations=on))
    a0 = queued_job("a0", "qa", 4)
    a0[0]["metadata"]["annotations"] = {"toposched.io/run-seconds": "1000"}
    e.submit(a0)
    for i in range(2):
        e.submit(queued_job(f"b{i}", "qb", 4))  # 3600 s, the default
    e.sched.cycle()  # a uses 4, b its 8: org has 4 of 16 unused, and one free node
    e.clock.advance(100)
    # w (a, 8 GPUs) would borrow 4 past a's guarantee with 4 unused: crowded, not reclaiming;
    # it fits on the free node and a0's once a0 ends (t=1000). n (a, 4 GPUs) fits the quota
    # and the free node, but would hold it until t=3700.
    w = e.submit(queued_job("w", "qa", 4, pods=2))
    n = e.submit(queued_job("n", "qa", 4))
    report = e.sched.cycle()
    explanation = e.sched.get(w).explanation
    assert "more than the queues under org leave unused" in explanation["reason"]
    if on:
        reservation = explanation["reservation"]
        assert n not in report.admitted and (reservation["nodes"], reservation["waitsFor"]) == (2, [1])
    else:  # w waits for quota while n takes the node it needs
        assert n in report.admitted and "reservation" not in explanation


def _three_teams() -> Env:
    """org's quota is 12 of the 16 GPUs: a, b and c are guaranteed 4 each."""
    teams: list[dict[str, Any]] = [{"name": "org"}] + [
        {"name": q, "parent": "org", "guaranteed": {GPU: 4}, "localQueues": [f"default/q{q}"]}
        for q in ("a", "b", "c")
    ]
    return env(queues=teams)


def test_a_queue_that_lost_its_gang_in_the_cycle_goes_before_one_that_would_borrow() -> None:
    # c0 borrowed 8; in the next cycle b1 reclaims it, a1 takes a to its 4, and then c (now at
    # 0 of its 4) goes before a (at its 4, a2 would borrow): c1 fills org's 12 and a2 waits.
    e = _three_teams()
    c0 = e.submit(queued_job("c0", "qc", 4, pods=3))
    e.sched.cycle()
    e.clock.advance(100)
    b1, a1, a2 = (e.submit(queued_job(n, q, 4)) for n, q in (("b1", "qb"), ("a1", "qa"), ("a2", "qa")))
    c1 = e.submit(queued_job("c1", "qc", 4))
    report = e.sched.cycle()
    assert report.evicted == (c0,) and report.admitted == (b1, a1, c1)
    assert status(e.sched)["org"][0] == 12
    assert "waits for quota" in e.sched.get(a2).explanation["reason"]


def test_a_gang_admitted_this_cycle_is_not_named_for_reclaim_so_the_quota_holds() -> None:
    # c0 borrows 8 (org at its 12). b1 reclaims it; then a1 (8 GPUs) is admitted, a borrowing
    # 4. c1 is within c's guarantee but org is full again: the only borrowed gang is a1, which
    # this cycle admitted and never evicts, so none is named (before, a1 was named, spared,
    # and c1 admitted anyway: org at 16 of its 12).
    e = _three_teams()
    c0 = e.submit(queued_job("c0", "qc", 4, pods=3))
    e.sched.cycle()
    b1, a1, c1 = (
        e.submit(queued_job(n, q, 4, pods=p))
        for n, q, p in (("b1", "qb", 1), ("a1", "qa", 2), ("c1", "qc", 1))
    )
    state = e.sched._state
    cycle = QueueCycle.open(state, state.snapshots.booked, e.store.queue((WorkloadState.PENDING,)))
    gang = {w: e.sched.compiled(w).gang for w in (b1, a1, c1)}
    assert cycle.refusal(b1, gang[b1])["reclaim"] == [c0]
    cycle.released(c0)
    cycle.admitted(b1, {"n0": Resources({GPU: 4, "pods": 1})})
    cycle.admitted(a1, {"n1": Resources({GPU: 8, "pods": 2})})
    refused = cycle.refusal(c1, gang[c1])
    assert refused is not None and "reclaim" not in refused


def test_a_higher_priority_gang_evicts_a_lower_one_of_its_queue_at_its_limit() -> None:
    # a holds three priority-0 gangs of 4 GPUs: its limit of 12. A priority-5 gang of a (room
    # for it is free) evicts the newest of them to stay within the limit, as Kueue's
    # withinClusterQueue: LowerPriority does (before, it waited for quota until one ended).
    e = env()
    low = [e.submit(queued_job(f"a{i}", "qa", 4)) for i in range(3)]
    e.sched.cycle()
    e.clock.advance(100)
    high = e.submit(queued_job("high", "qa", 4), priority=5)
    same = e.submit(queued_job("same", "qa", 4))  # priority 0: evicts nobody
    report = e.sched.cycle()
    assert report.evicted == (low[2],) and report.admitted == (high,)
    evicted = e.sched.get(low[2]).explanation
    assert evicted["preemptedBy"] == high and "priority 0 < 5" in evicted["reason"]
    assert status(e.sched)["a"][0] == 12 and "limit of 12" in e.sched.get(same).explanation["reason"]


def test_a_preemption_takes_from_a_queue_only_while_it_borrows() -> None:
    # Two racks of two 4-GPU nodes. b holds n2 (r2) since t=0 and n0, n1 (r1) since t=1000:
    # 12 of its 8, 4 borrowed. a asks 8 GPUs in one rack, within its guarantee; only n3 is free.
    # Evicting b's two young gangs in r1 loses the fewest GPU-hours, but the second would be
    # taken from b once it no longer borrows (b left with 4 of its 8): Kueue checks again after
    # each removal. So the old gang in r2 goes, and b keeps its guarantee.
    e = env(config=SchedulerConfig(gpu_resource=GPU))
    racks = {"n0": "r1", "n1": "r1", "n2": "r2", "n3": "r2"}
    e.store.put_nodes([node(n).at(block="b1", rack=r).alloc(gpu=4, cpu=64).build() for n, r in racks.items()])

    def only_on(names: set[str]) -> None:
        for name in racks:
            e.sched.cordon(name, name not in names)

    only_on({"n2"})
    old = e.submit(queued_job("b3", "qb", 4))
    e.sched.cycle()
    e.clock.advance(1000)
    only_on({"n0", "n1"})
    young = [e.submit(queued_job(f"b{i}", "qb", 4)) for i in (1, 2)]
    e.sched.cycle()
    only_on(set(racks))
    assert status(e.sched)["b"][:2] == (12, 4)
    wide = job("a0", 2, gpu=4)
    wide[0]["metadata"]["labels"] = {"kueue.x-k8s.io/queue-name": "qa"}
    a_id = e.submit(wide)
    e.clock.advance(10)
    report = e.sched.cycle()
    assert report.admitted == (a_id,) and report.evicted == (old,)
    assert all(e.sched.get(w).state is WorkloadState.ADMITTED for w in young)
    assert status(e.sched)["a"][0] == 8 and status(e.sched)["b"][:2] == (8, 0)


def test_reclaim_is_only_signalled_when_preemption_is_off() -> None:
    e = env(config=SchedulerConfig(preemption=False))
    a_ids = [e.submit(queued_job(f"a{i}", "qa", 4)) for i in range(3)]
    e.sched.cycle()
    b_id = e.submit(queued_job("b0", "qb", 4, pods=2))
    e.clock.advance(100)
    report = e.sched.cycle()
    assert b_id not in report.admitted and report.evicted == ()
    explanation = e.sched.get(b_id).explanation
    assert explanation["reclaim"] == [a_ids[2]] and "borrowed" in explanation["reason"]


def test_a_queue_that_never_preempts_names_no_gang_to_reclaim() -> None:
    teams = [dict(t, preemption="never") if t["name"] == "b" else t for t in TEAMS]
    e = env(queues=teams)
    for i in range(3):
        e.submit(queued_job(f"a{i}", "qa", 4))
    e.sched.cycle()
    b_id = e.submit(queued_job("b0", "qb", 4, pods=2))
    e.sched.cycle()
    assert "reclaim" not in e.sched.get(b_id).explanation


def test_without_queues_everything_is_in_default_and_unlimited() -> None:
    e = env(queues=[])
    ids = [e.submit(queued_job(f"j{i}", "qa", 4)) for i in range(4)]
    assert e.sched.cycle().admitted == tuple(ids)
    assert status(e.sched)["default"] == (16, 0, 0, 4)


def test_fair_share_order_across_queues() -> None:
    # Both queues borrow from org (guaranteed 0 each, org 16); b weighs 3. All of a's gangs
    # arrived first, yet b is served three GPUs for each of a's.
    e = env(
        queues=[
            {"name": "org", "guaranteed": {GPU: 16}},
            {"name": "a", "parent": "org", "localQueues": ["default/qa"]},
            {"name": "b", "parent": "org", "weight": 3, "localQueues": ["default/qb"]},
        ]
    )
    for i in range(16):
        e.submit(queued_job(f"a{i}", "qa", 1))
    for i in range(16):
        e.submit(queued_job(f"b{i}", "qb", 1))
    e.sched.cycle()
    assert status(e.sched)["a"][0] == 4 and status(e.sched)["b"][0] == 12


def test_the_fair_order_sees_a_gang_evicted_in_the_cycle() -> None:
    # a holds 12 of its 8 (share +4/16), b nothing (-8/16). Waiting: b0 (8 GPUs), a3, b1.
    # b0 goes first; admitting it takes b to its 8 (share 0), and the reclaim of one of a's
    # gangs takes a to its 8 (share 0, not +4/16 as before). Tied, the earlier gang goes: a3.
    e = env()
    held = [e.submit(queued_job(f"a{i}", "qa", 4)) for i in range(3)]
    e.sched.cycle()
    b0 = e.submit(queued_job("b0", "qb", 4, pods=2))
    a3 = e.submit(queued_job("a3", "qa", 4))
    b1 = e.submit(queued_job("b1", "qb", 4))
    state = e.sched._state
    pending = e.store.queue((WorkloadState.PENDING,))
    cycle = QueueCycle.open(state, state.snapshots.booked, pending)
    order = cycle.order(pending)
    assert next(order).id == b0
    cycle.admitted(b0, {"n3": Resources({GPU: 8, "pods": 2})})
    cycle.released(held[2])
    assert [entry.id for entry in order] == [a3, b1]


def test_fair_shares_are_shared_level_by_level() -> None:
    # Two groups under org (16 GPUs): g1 holds a and b, g2 holds c; nothing is guaranteed below
    # org, every gang asks 1 GPU, a's and b's arrived first. Shares are compared among siblings:
    # g1 and g2 get 8 GPUs each, and g1's 8 go 4 to a and 4 to b (compared queue by queue, a, b
    # and c would get about a third each).
    e = env(
        queues=[
            {"name": "org", "guaranteed": {GPU: 16}},
            {"name": "g1", "parent": "org"},
            {"name": "g2", "parent": "org"},
            {"name": "a", "parent": "g1", "localQueues": ["default/qa"]},
            {"name": "b", "parent": "g1", "localQueues": ["default/qb"]},
            {"name": "c", "parent": "g2", "localQueues": ["default/qc"]},
        ]
    )
    for queue in ("qa", "qb", "qc"):
        for i in range(16):
            e.submit(queued_job(f"{queue}-{i}", queue, 1))
    e.sched.cycle()
    used = {name: figures[0] for name, figures in status(e.sched).items()}
    assert (used["g1"], used["g2"], used["a"], used["b"], used["c"]) == (8, 8, 4, 4, 8)


def test_fair_shares_converge_to_the_weights_on_a_steady_trace() -> None:
    # A steady trace: both queues always have work waiting; every tick the two oldest running
    # gangs end and each queue submits one more. Whatever the start (a holds the whole cluster),
    # the GPUs in use converge to 1:3.
    e = env(
        queues=[
            {"name": "org", "guaranteed": {GPU: 16}},
            {"name": "a", "parent": "org", "localQueues": ["default/qa"]},
            {"name": "b", "parent": "org", "weight": 3, "localQueues": ["default/qb"]},
        ]
    )
    for i in range(16):
        e.submit(queued_job(f"a{i}", "qa", 1))
    e.sched.cycle()
    assert status(e.sched)["a"][0] == 16
    for i in range(20):
        e.submit(queued_job(f"a-more{i}", "qa", 1))
        e.submit(queued_job(f"b{i}", "qb", 1))
    history = []
    for tick in range(24):
        running = e.store.list_workloads(states=(WorkloadState.ADMITTED,))
        for record in running[:2]:
            e.sched.finish(record.id)
        e.submit(queued_job(f"a-t{tick}", "qa", 1))
        e.submit(queued_job(f"b-t{tick}", "qb", 1))
        e.clock.advance(120)  # past any backoff
        e.sched.cycle()
        history.append((status(e.sched)["a"][0], status(e.sched)["b"][0]))
    assert history[-4:] == [(4, 12)] * 4


def test_usage_is_the_same_after_a_restart(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "state.db")
    e = env(store)
    for i in range(3):
        e.submit(queued_job(f"a{i}", "qa", 4))
    e.submit(queued_job("b0", "qb", 2))
    e.sched.cycle()
    before = status(e.sched)
    store.close()
    with SqliteStore(tmp_path / "state.db") as reopened:
        again = Scheduler(reopened, e.clock, SchedulerConfig())
        assert (
            status(again)
            == before
            == {
                "a": (12, 4, 0, 3),
                "b": (2, 0, 0, 1),
                "default": (0, 0, 0, 0),
                "org": (14, 0, 0, 0),
            }
        )


def test_the_sums_kept_between_cycles_equal_those_made_afresh(tmp_path: Path) -> None:
    # The cycle sums usage from what the loop keeps (GangUsageSums); after admissions, a finish and
    # a restart, its accounts equal the ones summed from the store alone (``queues()``).
    store = SqliteStore(tmp_path / "state.db")
    e = env(store)
    ids = [e.submit(queued_job(f"a{i}", "qa", 4)) for i in range(3)]
    e.submit(queued_job("b0", "qb", 2))
    e.sched.cycle()
    e.sched.finish(ids[0])
    e.submit(queued_job("b1", "qb", 4))
    e.clock.advance(100)
    e.sched.cycle()  # a1, a2, b0 summed and kept
    e.sched.finish(ids[1])
    e.submit(queued_job("a3", "qa", 4))
    e.clock.advance(100)
    e.sched.cycle()  # a1 must be dropped from the kept sums

    def kept(sched: Scheduler) -> dict[str, int]:
        state = sched._state  # the loop's own: what the next cycle counts from
        cycle = QueueCycle.open(state, state.snapshots.booked, [])
        return {name: used[GPU] for name, used in cycle.accounts.used.items()}

    afresh = {name: used for name, (used, *_) in status(e.sched).items()}
    assert kept(e.sched) == afresh == {"a": 8, "b": 6, "default": 0, "org": 14}
    store.close()
    with SqliteStore(tmp_path / "state.db") as reopened:
        again = Scheduler(reopened, e.clock, SchedulerConfig())
        again.cycle()
        assert kept(again) == afresh


def test_a_gang_without_a_declared_run_time_gets_its_queue_s_default() -> None:
    teams = [dict(t, defaultRunSeconds=1800) if t["name"] == "a" else t for t in TEAMS]
    e = env(queues=teams, config=SchedulerConfig(default_run_seconds=600))
    in_a, in_b = e.submit(queued_job("a0", "qa", 4)), e.submit(queued_job("b0", "qb", 4))
    assert e.sched.cycle().admitted == (in_a, in_b)
    assert e.sched.get(in_a).placement["runSeconds"] == 1800  # queue a's default
    assert e.sched.get(in_b).placement["runSeconds"] == 600  # queue b has none: the service's
