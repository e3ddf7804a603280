"""Crash safety: a writer killed with SIGKILL at random moments loses no acknowledged write and
never leaves capacity booked twice."""

from __future__ import annotations

import random
import subprocess
import sys
import time
from pathlib import Path

import pytest

from toposched.store import SqliteStore, WorkloadState

CHILD = Path(__file__).with_name("crash_child.py")
KILLS = 30

# Tens of seconds each: marked so a quick local run can leave them out; CI runs everything.
pytestmark = [pytest.mark.slow, pytest.mark.timeout(600)]


def _check(path: Path, acked: dict[str, set[int]]) -> None:
    """The store opens, holds every acknowledged write, and books no node beyond its allocatable."""
    with SqliteStore(path) as store:
        assert store._db._conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        workloads = {w.id: w for w in store.list_workloads()}
        assert acked["submitted"] <= workloads.keys()
        for workload_id in acked["admitted"]:
            assert workloads[workload_id].state is not WorkloadState.PENDING
        for workload_id in acked["released"]:
            assert workloads[workload_id].state is WorkloadState.FINISHED
        nodes = {n.name: n for n in store.get_nodes()}
        for node, booked in store.reserved_by_node().items():
            assert all(booked[r] <= nodes[node].allocatable[r] for r in booked), (node, booked)
        for workload in workloads.values():
            assert bool(store.reservations(workload.id)) == workload.state.holds_capacity, workload


def test_sigkill_at_random_moments_loses_nothing_acknowledged(tmp_path: Path) -> None:
    path = tmp_path / "state.db"
    rng = random.Random(20240611)
    acked: dict[str, set[int]] = {"submitted": set(), "admitted": set(), "released": set()}
    for round_ in range(KILLS):
        child = subprocess.Popen(
            [sys.executable, str(CHILD), str(path), str(round_)], stdout=subprocess.PIPE, text=True
        )
        assert child.stdout is not None
        # Every fifth round dies while opening (possibly mid-migration); the rest mid-work.
        if round_ % 5 != 0:
            assert child.stdout.readline() == "ready\n"
        time.sleep(rng.uniform(0.0, 0.15))
        child.kill()
        child.wait()
        for line in child.stdout.read().splitlines(keepends=True):
            if line.endswith("\n") and line != "ready\n":
                kind, number = line.split()
                acked[kind].add(int(number))
        child.stdout.close()
        _check(path, acked)
    # The loop really exercised every kind of write it checks.
    assert all(acked.values()), {kind: len(ids) for kind, ids in acked.items()}
