"""Team queues in a replay (two racks of two 8-GPU nodes, 32 GPUs): the trace's GPU time gives
each queue a guarantee of 16 GPUs (a: 2 x 16 GPUs x 100 s, b: 16 GPUs x 200 s).

t=0   a1 (16 GPUs) starts within a's guarantee
t=1   a2 (16 GPUs) starts on what b leaves idle: a borrows 16
t=10  b1 (16 GPUs, within b's guarantee) finds it lent out: a2 is reclaimed and b1 starts
t=100 a1 ends; a2 starts over within a's guarantee and runs its 100 s again
Without queues b1 would wait for a1 to end at t=100.
"""

from __future__ import annotations

from pathlib import Path

from toposched.sim.config import SimConfig
from toposched.sim.metrics import metrics_of
from toposched.sim.study import StudySpec, build_inputs, replay_policy

from .conftest import SMALL_CLUSTER

ROWS = """job_id,submit_time_s,duration_s,num_pods,gpus_per_pod,queue
a1,0,100,2,8,a
a2,1,100,2,8,a
b1,10,200,2,8,b
"""


def test_a_team_gets_its_guarantee_back_from_a_borrower(tmp_path: Path, config: SimConfig) -> None:
    trace = tmp_path / "teams.csv"
    trace.write_text(ROWS, encoding="utf-8")
    spec = StudySpec(str(trace), SMALL_CLUSTER, config)
    assert build_inputs(spec).quotas == {"a": 16, "b": 16}
    jobs = replay_policy(spec, "bestfit").jobs
    assert [j.admitted for j in jobs] == [0.0, 1.0, 10.0]  # first admissions
    assert [j.evictions for j in jobs] == [0, 1, 0]
    assert [j.finished for j in jobs] == [100.0, 200.0, 210.0]
    assert metrics_of(replay_policy(spec, "bestfit")).overcommits == 0
