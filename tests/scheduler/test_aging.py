"""Aging: a gang's place in the queue rises with its wait, so a stream of higher-priority gangs
cannot starve it (the scheduler tests' cluster: 8 GPUs on 4 nodes)."""

from __future__ import annotations

from pathlib import Path

import pytest

from toposched.model import SpecError
from toposched.scheduler import Scheduler, SchedulerConfig
from toposched.store import EventRecord, SqliteStore, WorkloadState

from .conftest import Env, job


def _starve(aging_seconds: float | None, rounds: int = 8) -> tuple[Env, int, list[float]]:
    """A low-priority gang needing the whole cluster waits while, every 100 s, the running
    high-priority gang ends and another arrives; the times it was admitted at."""
    env = Env(config=SchedulerConfig(aging_seconds=aging_seconds))
    running = env.submit(job("high-0", 8, required=None), priority=1)
    starved = env.submit(job("low", 8, required=None), priority=0)
    env.sched.cycle()
    admitted: list[float] = []
    for i in range(1, rounds):
        env.clock.advance(100)
        env.sched.finish(running)
        if env.sched.get(starved).state is WorkloadState.ADMITTED:
            break
        running = env.submit(job(f"high-{i}", 8, required=None), priority=1)
        if starved in env.sched.cycle().admitted:
            admitted.append(env.clock.now())
    return env, starved, admitted


def test_without_aging_the_low_gang_starves() -> None:
    _, _, admitted = _starve(None)
    assert admitted == []


def test_aging_lets_the_starved_gang_through() -> None:
    # Seen waiting at t=1000; one priority step per 250 s: at t=1300 it ranks with the
    # newcomers' priority 1 and, older, goes first.
    env, starved, admitted = _starve(250.0)
    assert admitted == [1300.0]
    # It keeps the rank it reached: the priority-1 gang it overtook cannot preempt it.
    env.clock.advance(10)
    assert env.sched.cycle().evicted == ()
    assert env.sched.get(starved).placement["admittedPriority"] == 1


@pytest.mark.parametrize("seconds", [0.0, -1.0, float("inf"), float("nan")])
def test_bad_aging_setting_names_the_field(seconds: float) -> None:
    with pytest.raises(SpecError) as err:
        SchedulerConfig(aging_seconds=seconds)
    assert err.value.problems[0].path == "aging_seconds"


@pytest.mark.parametrize("restart", [False, True])
def test_a_restart_keeps_the_waits(tmp_path: Path, restart: bool) -> None:
    # low waits from t=1000 behind a priority-1 gang; at t=1300 (one 250 s step: rank 1) the
    # service restarts, high-0 ends and high-1 (priority 1) arrives. low, older at the same
    # rank, goes first: its wait is counted from its submission, as stored, not from the restart.
    config = SchedulerConfig(aging_seconds=250.0)
    env = Env(SqliteStore(tmp_path / "state.db"), config)
    running = env.submit(job("high-0", 8, required=None), priority=1)
    low = env.submit(job("low", 8, required=None), priority=0)
    env.sched.cycle()
    env.clock.advance(300)
    if restart:
        env.store.close()
        env.store = SqliteStore(tmp_path / "state.db")
        env.sched = Scheduler(env.store, env.clock, config)
    env.sched.finish(running)
    env.submit(job("high-1", 8, required=None), priority=1)
    assert env.sched.cycle().admitted == (low,)


@pytest.mark.parametrize("restart", [False, True])
def test_a_gang_requeued_right_after_its_admission_waits_from_the_requeue(
    tmp_path: Path, restart: bool
) -> None:
    # g waits from t=1000 and is admitted at once; at t=2000, before the next cycle, it is
    # evicted (a pod that could not start) and requeued by that cycle. Its wait counts from the
    # requeue, as stored: readmitted at once, it ranks 0 with or without a restart (before, the
    # loop still remembered t=1000 and gave it 4 steps it had not waited).
    config = SchedulerConfig(aging_seconds=250.0)
    env = Env(SqliteStore(tmp_path / "state.db"), config)
    g = env.submit(job("g", 4, required=None))
    assert env.sched.cycle().admitted == (g,)
    env.clock.advance(1000)
    env.store.evict(
        g, EventRecord(type="Evicted", message="a pod could not start", time=env.clock.now(), workload=g)
    )
    if restart:
        env.store.close()
        env.store = SqliteStore(tmp_path / "state.db")
        env.sched = Scheduler(env.store, env.clock, config)
    assert env.sched.cycle().admitted == (g,)
    assert env.sched.get(g).placement["admittedPriority"] == 0
