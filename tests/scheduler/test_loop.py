"""The loop's cheap paths: one transaction per submission, cached gangs and topology trees,
wake-ups, and the event-driven ``run``."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from tests.scheduler.conftest import Env, job

from toposched.frontends import kueue
from toposched.scheduler import ManualClock, Scheduler
from toposched.store import WorkloadState


def test_submit_logs_its_event_and_the_loop_reuses_the_compiled_gang(
    env: Env, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = 0
    real = kueue.compile_workload

    def counting(*args: Any, **kwargs: Any) -> Any:
        nonlocal calls
        calls += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(kueue, "compile_workload", counting)  # what the registry's Kueue entry calls
    wid = env.submit(job("a", 1))
    assert calls == 1  # one topology defined: compiled once, against it
    assert env.events(wid) == ["submitted"]
    env.sched.cycle()
    assert calls == 1  # the cycle used the gang compiled at submission
    assert env.sched.get(wid).state is WorkloadState.ADMITTED


def test_topology_tree_is_rebuilt_only_when_nodes_change(env: Env) -> None:
    trees = env.sched._state.trees
    env.submit(job("a", 1))
    env.sched.cycle()
    built = trees.builds
    env.submit(job("b", 1))
    env.sched.cycle()
    assert trees.builds == built
    env.sched.cordon("x4")
    env.submit(job("c", 1))
    env.sched.cycle()
    assert trees.builds == built + 1


def test_unchanged_explanation_is_not_rewritten(env: Env) -> None:
    wid = env.submit(job("huge", 9))
    env.sched.cycle()
    first = env.sched.get(wid).explanation
    writes = 0
    real = env.store.set_explanation

    def counting(workload_id: int, explanation: object) -> object:
        nonlocal writes
        writes += 1
        return real(workload_id, explanation)

    env.store.set_explanation = counting  # type: ignore[method-assign, assignment]  # spy on the store
    assert isinstance(env.clock, ManualClock)
    env.clock.advance(3600)
    env.sched.cycle()
    assert env.sched.get(wid).explanation == first
    assert writes == 0


def test_run_wakes_on_submission(env: Env) -> None:
    stop = threading.Event()
    loop = threading.Thread(target=env.sched.run, args=(stop,), kwargs={"interval": 3600.0})
    loop.start()
    try:
        wid = env.submit(job("a", 1))
        admitted = threading.Event()
        for _ in range(500):  # bounded: the loop was woken by the submission, not by the hour-long timeout
            if env.sched.get(wid).state is WorkloadState.ADMITTED:
                admitted.set()
                break
            stop.wait(0.01)
        assert admitted.is_set()
    finally:
        stop.set()
        env.sched.wake()
        loop.join(timeout=10)
    assert not loop.is_alive()


def test_a_scheduler_over_the_same_store_sees_submissions(env: Env) -> None:
    other = Scheduler(env.store, env.clock)
    wid = env.submit(job("a", 1))
    assert other.cycle().admitted == (wid,)
