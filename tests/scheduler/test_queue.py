"""Intake, queue order, all-or-nothing admission, reservations and backoff."""

from __future__ import annotations

import pytest

from builders import GPU
from toposched.model import NotFoundError, PermissionDeniedError, Resources, WorkloadSpecError
from toposched.scheduler import SchedulerConfig
from toposched.store import WorkloadState

from .conftest import Env, job


def test_submit_stores_pending_and_never_places(env: Env) -> None:
    record = env.sched.submit(job("a", 2), owner="alice")
    assert record.state is WorkloadState.PENDING
    assert record.topology == "default" and record.kind == "Job" and record.name == "a"
    assert env.store.reserved_by_node() == {}
    assert env.events(record.id) == ["submitted"]


def test_submit_rejects_bad_spec_with_field_paths(env: Env) -> None:
    with pytest.raises(WorkloadSpecError) as err:
        env.sched.submit(job("a", 2, required="example.com/nope"), owner="alice")
    assert any("nope" in str(p) for p in err.value.problems)
    assert env.sched.list() == []


def test_submit_unknown_topology_is_not_found(env: Env) -> None:
    with pytest.raises(NotFoundError):
        env.sched.submit(job("a", 1), owner="alice", topology="missing")


def test_admission_reserves_capacity_and_records_placement(env: Env) -> None:
    wid = env.submit(job("a", 4))
    report = env.sched.cycle()
    assert report.admitted == (wid,)
    record = env.sched.get(wid)
    assert record.state is WorkloadState.ADMITTED and record.explanation is None
    assert set(env.nodes_of(wid).values()) <= {"x1", "x2", "x3"}  # rack r1: the only rack with 4 GPUs
    assert sum(r[GPU] for r in env.store.reserved_by_node().values()) == 4
    assert record.placement["assignments"]["main"]["levels"] == ["kubernetes.io/hostname"]
    assert "admitted" in env.events(wid)


@pytest.mark.parametrize(
    "priorities", [(0, 0, 0), (0, 5, 0), (1, 1, 9)], ids=["fifo", "middle-first", "last-first"]
)
def test_priority_then_arrival_order(env: Env, priorities: tuple[int, int, int]) -> None:
    # Each job takes 4 of the 6 GPUs of rack r1: only the first in order fits.
    ids = [env.submit(job(f"j{i}", 4), priority=p) for i, p in enumerate(priorities)]
    report = env.sched.cycle()
    expected = sorted(range(3), key=lambda i: (-priorities[i], i))[0]
    assert report.admitted == (ids[expected],)
    assert set(report.unschedulable) == set(ids) - {ids[expected]}


def test_later_gangs_see_capacity_booked_in_the_same_cycle(env: Env) -> None:
    # a takes 4 of r1's 6 GPUs; b needs 3 in one rack (2 left in each); c needs 2.
    first, second, third = env.submit(job("a", 4)), env.submit(job("b", 3)), env.submit(job("c", 2))
    report = env.sched.cycle()
    assert report.admitted == (first, third)
    assert report.unschedulable == (second,)
    assert sum(r[GPU] for r in env.store.reserved_by_node().values()) == 6


def test_all_or_nothing(env: Env) -> None:
    wid = env.submit(job("big", 7, required=None))  # 7 of the 8 GPUs
    small = env.submit(job("huge", 2, required=None))  # 1 GPU is left: none of its pods is placed
    report = env.sched.cycle()
    assert report.admitted == (wid,) and report.unschedulable == (small,)
    assert env.store.reservations(small) == {}
    record = env.sched.get(small)
    assert record.state is WorkloadState.PENDING
    assert record.explanation["reason"]
    assert "unschedulable" in env.events(small)


def test_finish_and_cancel_release_capacity(env: Env) -> None:
    a, b = env.submit(job("a", 4)), env.submit(job("b", 4))
    env.sched.cycle()
    assert env.sched.get(b).state is WorkloadState.PENDING
    env.sched.finish(a)
    assert env.store.reservations(a) == {}
    env.clock.advance(5)
    assert env.sched.cycle().admitted == (b,)
    env.sched.cancel(b, actor="alice")
    assert env.store.reserved_by_node() == {}
    assert env.sched.get(b).state is WorkloadState.CANCELLED
    assert env.events(a)[-1] == "finished" and env.events(b)[-1] == "cancelled"


def test_cancel_needs_owner_or_admin(env: Env) -> None:
    wid = env.submit(job("a", 1), owner="alice")
    with pytest.raises(PermissionDeniedError):
        env.sched.cancel(wid, actor="bob")
    assert env.sched.cancel(wid, actor="root", admin=True).state is WorkloadState.CANCELLED


def test_backoff_doubles_and_caps() -> None:
    env = Env(config=SchedulerConfig(backoff_base_seconds=1, backoff_max_seconds=4))
    blocker = env.submit(job("blocker", 6))
    env.sched.cycle()
    wid = env.submit(job("w", 4))
    attempts = []
    for _ in range(12):  # 12 cycles, 0.5 s apart: attempts at t=0, 1, 3, 7, (cap 4) 11 ... relative
        if wid in env.sched.cycle().unschedulable:
            attempts.append(env.clock.now() - 1000.0)
        env.clock.advance(0.5)
    assert attempts == [0.0, 1.0, 3.0]
    env.clock.advance(1.0)  # t = 7.0
    assert env.sched.cycle().unschedulable == (wid,)
    env.clock.advance(3.5)
    assert env.sched.cycle().unschedulable == ()  # cap: next attempt at 11
    env.clock.advance(0.5)
    assert env.sched.cycle().unschedulable == (wid,)
    # One event per distinct reason, not per attempt.
    assert env.events(wid).count("unschedulable") == 1
    env.sched.finish(blocker)
    env.clock.advance(4)
    assert env.sched.cycle().admitted == (wid,)


def test_list_by_owner(env: Env) -> None:
    env.submit(job("a", 1), owner="alice")
    env.submit(job("b", 1), owner="bob")
    assert [r.name for r in env.sched.list(owner="bob")] == ["b"]
    assert [r.name for r in env.sched.list()] == ["a", "b"]


def test_unparsable_stored_spec_is_marked_and_skipped(env: Env) -> None:
    from toposched.store import WorkloadRecord

    bad = env.store.submit_workload(WorkloadRecord("bad", "Job", "alice", "kind: Job\n", topology="default"))
    good = env.submit(job("good", 1))
    report = env.sched.cycle()
    assert report.admitted == (good,)
    assert env.sched.get(bad.id).explanation["reason"].startswith("the stored spec no longer compiles")
    assert "invalid spec" in env.events(bad.id)


def test_explicit_reservation_matches_usage(env: Env) -> None:
    wid = env.submit(job("a", 2, required="kubernetes.io/hostname"))
    env.sched.cycle()
    (only,) = env.store.reservations(wid).values()
    assert only == Resources({GPU: 2, "pods": 2})


def test_prepare_validates_without_storing_and_commit_queues_it(env: Env) -> None:
    with pytest.raises(WorkloadSpecError):
        env.sched.prepare(job("bad", 2, required="example.com/nope"), owner="alice")
    submission = env.sched.prepare(job("a", 2), owner="alice", priority=5)
    assert env.sched.list() == []  # nothing is stored before commit
    assert submission.topology.name == "default"
    assert submission.gang.size == 2
    record = env.sched.commit(submission)
    assert record.state is WorkloadState.PENDING and record.priority == 5
    assert env.events(record.id) == ["submitted"]
    assert env.sched.cycle().admitted == (record.id,)
