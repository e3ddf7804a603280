"""The loop never dies: backoff stays bounded at any attempt count, and an unexpected failure of
one workload (any exception, a damaged stored row) is confined to it while the others schedule."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path
from typing import Any

import pytest
from tests.scheduler.conftest import Env, job

from builders import node
from toposched.engine import PlacementSession
from toposched.model import Gang, Topology
from toposched.scheduler import SchedulerConfig
from toposched.scheduler.state import State
from toposched.store import SqliteStore, WorkloadState


def test_a_workload_that_failed_2000_times_is_still_retried_and_admitted() -> None:
    env = Env(config=SchedulerConfig(backoff_base_seconds=1, backoff_max_seconds=2))
    wid = env.submit(job("big", 4, gpu=2))  # rack r1 holds only 3 such pods
    failures = 0
    for _ in range(2000):
        failures += env.sched.cycle().unschedulable.count(wid)
        env.clock.advance(2)
    assert failures == 2000
    assert env.sched.health().last_error is None
    env.store.put_nodes([node("x5").at(block="b1", rack="r1").alloc(gpu=2, cpu=8).build()])
    assert env.sched.cycle().admitted == (wid,)


def test_the_backoff_maximum_must_be_finite_and_at_least_the_base() -> None:
    with pytest.raises(Exception, match="backoff_max_seconds"):
        SchedulerConfig(backoff_base_seconds=10, backoff_max_seconds=1)


@pytest.mark.parametrize("where", ["placement", "compile"])
def test_an_unexpected_exception_is_confined_to_its_workload(
    env: Env, monkeypatch: pytest.MonkeyPatch, where: str
) -> None:
    boom = env.submit(job("boom", 1))
    other = env.submit(job("other", 1))
    if where == "placement":
        real_place = PlacementSession.place

        def place(session: PlacementSession, gang: Gang, *args: Any, **kwargs: Any) -> Any:
            if gang.name == "boom":
                raise RuntimeError("engine bug")
            return real_place(session, gang, *args, **kwargs)

        monkeypatch.setattr(PlacementSession, "place", place)
    else:
        real_gang_of = State.gang_of

        def gang_of(self: State, record: Any, topology: Topology) -> Gang:
            if record.id == boom:
                raise RuntimeError("front end bug")
            return real_gang_of(self, record, topology)

        monkeypatch.setattr(State, "gang_of", gang_of)
    report = env.sched.cycle()
    assert report.admitted == (other,)
    record = env.sched.get(boom)
    assert record.state is WorkloadState.PENDING
    assert record.explanation["broken"] is True
    assert "RuntimeError" in record.explanation["reason"]
    assert list(env.sched.health().broken) == [boom]
    env.clock.advance(120)
    later = env.submit(job("later", 1))
    assert env.sched.cycle().admitted == (later,)  # retried after its backoff, still isolated
    assert env.events(boom).count("invalid spec") == 1  # reported once, not once per attempt
    monkeypatch.undo()
    env.clock.advance(120)
    assert env.sched.cycle().admitted == (boom,)
    assert env.sched.health().broken == {}


def test_a_damaged_placement_row_is_reported_and_skipped(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    env = Env(SqliteStore(db))
    damaged = env.submit(job("damaged", 2))
    env.sched.cycle()
    with sqlite3.connect(db) as raw:
        raw.execute("UPDATE workloads SET placement = '{not json' WHERE id = ?", (damaged,))
    after = env.submit(job("after", 1))
    assert env.sched.cycle().admitted == (after,)
    record = env.sched.get(damaged)
    assert "not valid JSON" in record.damage
    assert record.explanation["broken"] is True
    assert damaged in env.sched.health().broken
    assert env.store.reserved_by_node()  # its booking is kept: nothing can be double-booked
    assert [w.id for w in env.sched.list()] == [damaged, after]


def test_a_failed_cycle_is_reported_in_the_health(env: Env, monkeypatch: pytest.MonkeyPatch) -> None:
    stop = threading.Event()

    def failing() -> None:
        stop.set()  # one pass is enough
        raise RuntimeError("store gone")

    monkeypatch.setattr(env.sched, "cycle", failing)
    env.sched.run(stop, interval=0.01)
    health = env.sched.health()
    assert health.last_error == "RuntimeError: store gone"
    assert health.last_error_at == env.clock.now()
