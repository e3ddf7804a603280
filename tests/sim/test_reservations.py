"""Reservations and backfill in a replay, on a hand-made trace (one spine of two racks of two
8-GPU nodes, 32 GPUs; every job declares its duration as its run time):

t=0    a, b, c, d take one node each, ending at 100, 200, 300 and 400
t=10   wide (4 nodes) does not fit: it reserves all four, from t=400 (when d ends)
t=20   long (1 node, runs 1000 s) waits: it would end after the reservation starts
t=100  a ends; short (1 node, 50 s) arrives and backfills a's node: it ends at 150 < 400
t=400  d ends: wide starts, never delayed by the backfilled job
t=450  wide ends; long starts

Without reservations, long takes a's node at t=100 and wide waits until t=1100.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from toposched.sim.config import SimConfig
from toposched.sim.metrics import metrics_of
from toposched.sim.study import StudySpec, replay_policy

from .conftest import SMALL_CLUSTER, write_trace

TRACE = [
    ("a", 0, 100, 1, 8),
    ("b", 0, 200, 1, 8),
    ("c", 0, 300, 1, 8),
    ("d", 0, 400, 1, 8),
    ("wide", 10, 50, 4, 8),
    ("long", 20, 1000, 1, 8),
    ("short", 100, 50, 1, 8),
]
WIDE, LONG, SHORT = 4, 5, 6


def _replay(tmp_path: Path, config: SimConfig, *, reservations: bool) -> dict[int, float | None]:
    settings = config.scheduler.model_copy(update={"reservations": reservations})
    spec = StudySpec(
        str(write_trace(tmp_path / "reserve.csv", TRACE)),
        SMALL_CLUSTER,
        config.model_copy(update={"scheduler": settings}),
    )
    result = replay_policy(spec, "bestfit")
    m = metrics_of(result)
    assert (m.finished, m.lost_jobs, m.overcommits) == (len(TRACE), 0, 0)
    return {j.index: j.admitted for j in result.jobs}


def test_a_backfilled_job_never_delays_the_reservation(tmp_path: Path, config: SimConfig) -> None:
    admitted = _replay(tmp_path, config, reservations=True)
    assert admitted[WIDE] == pytest.approx(400.0)  # as soon as the running jobs end: d at 400
    assert admitted[SHORT] == pytest.approx(100.0)  # backfilled: it ends at 150, before 400
    assert admitted[LONG] == pytest.approx(450.0)  # kept off the reserved nodes until wide ends


def test_without_reservations_the_long_job_takes_the_freed_node(tmp_path: Path, config: SimConfig) -> None:
    admitted = _replay(tmp_path, config, reservations=False)
    assert admitted[LONG] == pytest.approx(100.0)
    assert admitted[WIDE] == pytest.approx(1100.0)  # starved behind it
