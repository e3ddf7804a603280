"""The request-path verbs never wait for the loop, and the loop forgets what ended without them."""

from __future__ import annotations

import threading

import pytest
from tests.scheduler.conftest import Env, job

from toposched.store import WorkloadState


@pytest.mark.parametrize("verb", ["cancel", "finish"])
def test_release_does_not_wait_for_the_scheduler_lock(env: Env, verb: str) -> None:
    wid = env.submit(job("a", 4))
    env.sched.cycle()
    done = threading.Event()

    def release() -> None:
        if verb == "cancel":
            env.sched.cancel(wid, actor="alice")
        else:
            env.sched.finish(wid)
        done.set()

    with env.sched._state.lock:  # as if a cycle were placing a workload right now
        worker = threading.Thread(target=release)
        worker.start()
        assert done.wait(timeout=10), f"{verb} waited for the scheduler lock"
    worker.join(timeout=10)
    expected = WorkloadState.CANCELLED if verb == "cancel" else WorkloadState.FINISHED
    assert env.sched.get(wid).state is expected
    assert env.store.reserved_by_node() == {}


def test_next_cycle_forgets_workloads_released_by_requests(env: Env) -> None:
    blocker = env.submit(job("blocker", 6))
    env.sched.cycle()
    waiting = env.submit(job("waiting", 4))
    keep = env.submit(job("keep", 4))
    report = env.sched.cycle()
    assert waiting in report.unschedulable and keep in report.unschedulable
    state = env.sched._state
    assert waiting in state.backoff and waiting in state.gangs
    env.sched.cancel(waiting, actor="alice")
    env.sched.cycle()
    assert waiting not in state.backoff and waiting not in state.gangs and waiting not in state.reported
    assert keep in state.backoff  # still pending: its backoff is kept
    assert env.sched.get(blocker).state is WorkloadState.ADMITTED
