"""The smaller parts: placement JSON round trip, topology guards, the clock."""

from __future__ import annotations

import threading

import pytest

from builders import BLOCK, HOST, RACK
from toposched.emit.result import placement_from_json, placement_to_json
from toposched.model import ConflictError, NotFoundError, Topology, WorkloadSpecError
from toposched.scheduler import ManualClock, SchedulerConfig
from toposched.store import WorkloadState

from .conftest import Env, job


def test_placement_json_round_trip(env: Env) -> None:
    wid = env.submit(job("a", 3))
    env.sched.cycle()
    stored = env.sched.get(wid).placement
    # The admission stamps: when (the clock), its run time (the default) and the rank it had.
    assert set(stored) == {
        "topology",
        "policy",
        "pods",
        "assignments",
        "foundBy",
        "note",
        "admittedAt",
        "runSeconds",
        "admittedPriority",
    }
    assert (stored["admittedAt"], stored["runSeconds"], stored["admittedPriority"]) == (1000.0, 3600.0, 0)
    assert set(stored["pods"][0]) == {"name", "podSet", "index", "node"}
    document = {k: v for k, v in stored.items() if k not in ("admittedAt", "runSeconds", "admittedPriority")}
    assert placement_to_json(placement_from_json(stored)) == document


def test_topology_in_use_cannot_be_deleted_or_relevelled(env: Env) -> None:
    wid = env.submit(job("a", 2))
    env.sched.cycle()
    with pytest.raises(ConflictError):
        env.sched.delete_topology("default")
    with pytest.raises(ConflictError):
        env.sched.put_topology(Topology.create("default", [RACK, HOST]))
    env.sched.put_topology(Topology.create("default", [BLOCK, RACK, HOST], {"rack": RACK}))  # same levels
    env.sched.finish(wid)
    env.sched.put_topology(Topology.create("default", [RACK, HOST]))
    env.sched.delete_topology("default")
    with pytest.raises(NotFoundError):
        env.sched.submit(job("b", 1), owner="alice")


def test_several_topologies_need_a_name(env: Env) -> None:
    env.sched.put_topology(Topology.create("racks", [RACK, HOST]))
    with pytest.raises(NotFoundError):
        env.sched.submit(job("a", 1), owner="alice")
    assert env.sched.submit(job("a", 1), owner="alice", topology="racks").topology == "racks"


def test_pod_status_checks_the_pod_and_the_state(env: Env) -> None:
    wid = env.submit(job("a", 1))
    with pytest.raises(ConflictError):
        env.sched.set_pod_status(wid, "a-0", "Running")
    env.sched.cycle()
    with pytest.raises(NotFoundError):
        env.sched.set_pod_status(wid, "nope", "Running")
    pod = next(iter(env.nodes_of(wid)))
    assert env.sched.set_pod_status(wid, pod, "Running").state is WorkloadState.RUNNING


def test_manual_clock() -> None:
    clock = ManualClock(5.0)
    clock.advance(2.5)
    assert clock.now() == 7.5
    with pytest.raises(ValueError, match="back in time"):
        clock.advance(-1)


def test_run_cycles_until_stopped(env: Env) -> None:
    wid = env.submit(job("a", 1))
    stop = threading.Event()
    thread = threading.Thread(target=env.sched.run, args=(stop, 0.01))
    thread.start()
    for _ in range(500):
        if env.sched.get(wid).state is WorkloadState.ADMITTED:
            break
        stop.wait(0.01)
    stop.set()
    thread.join(5)
    assert not thread.is_alive()
    assert env.sched.get(wid).state is WorkloadState.ADMITTED


def test_the_pod_limit_comes_from_the_scheduler_config() -> None:
    env = Env(config=SchedulerConfig(max_pods=2))
    env.submit(job("two", 2))
    with pytest.raises(WorkloadSpecError) as caught:
        env.submit(job("three", 3))
    assert "spec.parallelism: asks for 3 pods; the limit is 2 pods per gang" in str(caught.value)
    assert [w.name for w in env.sched.list()] == ["two"]
