"""Preemption in a replay, on a hand-made trace with priorities (two racks of two 8-GPU nodes):

t=0    a (2 nodes, required in a rack, 100 s) takes rack 1
t=5    b (the same, 100 s) takes rack 2
t=50   urgent (priority 5, 2 nodes in a rack, 30 s) fits nowhere: evicting b loses 16 GPUs x 45 s,
       a would lose 16 x 50 s, so b goes back to the queue and urgent runs 50-80
t=80   urgent ends; b starts over and runs its 100 s in full: 80-180
t=100  a ends

GPU-seconds used: a 1,600, b 720 lost + 1,600 again, urgent 480; the replay's own ledger adds up
to exactly that, and never books a node beyond its GPUs.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from toposched.model import SpecError
from toposched.sim.config import SimConfig
from toposched.sim.metrics import metrics_of
from toposched.sim.study import StudySpec, replay_policy
from toposched.sim.trace import load_trace

from .conftest import SMALL_CLUSTER

ROWS = """job_id,submit_time_s,duration_s,num_pods,gpus_per_pod,priority
a,0,100,2,8,0
b,5,100,2,8,0
urgent,50,30,2,8,5
"""
A, B, URGENT = 0, 1, 2


def test_preempted_job_starts_over_and_gpu_seconds_add_up(tmp_path: Path, config: SimConfig) -> None:
    trace = tmp_path / "priorities.csv"
    trace.write_text(ROWS, encoding="utf-8")
    result = replay_policy(StudySpec(str(trace), SMALL_CLUSTER, config), "bestfit")
    jobs = result.jobs
    assert [j.admitted for j in jobs] == [0.0, 5.0, 50.0]  # b's first admission
    assert [j.finished for j in jobs] == [100.0, 180.0, 80.0]
    assert [j.evictions for j in jobs] == [0, 1, 0]
    series = result.series
    used = sum(
        gpus * (later - now)
        for now, later, gpus in zip(series.time, series.time[1:], series.used_gpus, strict=False)
    )
    assert used == pytest.approx(1600 + 720 + 1600 + 480)
    m = metrics_of(result)
    assert (m.evictions, m.lost_jobs, m.overcommits, m.finished) == (1, 0, 0, 3)


def test_priority_column_is_read_and_checked(tmp_path: Path, config: SimConfig) -> None:
    trace = tmp_path / "bad.csv"
    trace.write_text(ROWS.replace("urgent,50,30,2,8,5", "urgent,50,30,2,8,high"), encoding="utf-8")
    with pytest.raises(SpecError) as err:
        load_trace(str(trace), config.traces)
    assert "priority" in str(err.value.problems[0])
    trace.write_text(ROWS, encoding="utf-8")
    assert [j.priority for j in load_trace(str(trace), config.traces).jobs] == [0, 0, 5]
