"""The replay of a small trace, every figure worked out by hand (see conftest.SMALL_TRACE).

Timeline (32 GPUs): t=0 a and b take one rack each (32 used); t=10 c and t=20 d wait;
t=50 b ends, c starts on b's rack (24 used, 8 free on a partly used rack); t=90 c ends (16 used);
t=100 a ends, d takes all four nodes (32 used); t=110 d ends (0 used); t=120 e starts.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from toposched.model import Policy
from toposched.sim.config import SimConfig
from toposched.sim.metrics import metrics_of
from toposched.sim.study import StudySpec, build_inputs, replay_policy

from .conftest import SMALL_CLUSTER


@pytest.mark.parametrize("policy", list(Policy))
def test_small_trace_metrics_match_the_hand_worked_timeline(
    small_trace: Path, config: SimConfig, policy: Policy
) -> None:
    result = replay_policy(StudySpec(str(small_trace), SMALL_CLUSTER, config), policy)
    admitted = {j.index: j.admitted for j in result.jobs}
    assert admitted == {0: 0.0, 1: 0.0, 2: 50.0, 3: 100.0, 4: 120.0}
    assert result.admissions == [0, 1, 2, 3, 4]
    assert [j.finished for j in result.jobs] == [100.0, 50.0, 90.0, 110.0, 130.0]
    m = metrics_of(result)
    assert (m.jobs, m.admitted, m.finished, m.never_placed) == (5, 5, 5, 0)
    # Waits 0, 0, 40, 80, 0: percentiles interpolate between ranks of [0, 0, 0, 40, 80].
    assert m.wait_mean == pytest.approx(24.0)
    assert m.wait_p50 == pytest.approx(0.0)
    assert m.wait_p95 == pytest.approx(72.0)
    assert m.wait_p99 == pytest.approx(78.4)
    # GPU-seconds over [0, 120] (the arrival window): 32*50 + 24*40 + 16*10 + 32*10 + 0*10 = 3040.
    assert m.utilisation == pytest.approx(3040 / 120 / 32)
    # 8 free GPUs on c's half-used rack from 50 to 90: 8 * 40 / 120.
    assert m.fragmented_gpus_mean == pytest.approx(8 * 40 / 120)
    # c and e carry a preferred rack (one pod each: met); a, b and d are required.
    assert (m.preferred_jobs, m.preferred_hit_share) == (2, 1.0)
    assert (m.evictions, m.replacements, m.lost_jobs, m.overcommits) == (0, 0, 0, 0)


def test_the_wide_job_is_submitted_with_the_block_and_rack_slice_request(
    small_trace: Path, config: SimConfig
) -> None:
    inputs = build_inputs(StudySpec(str(small_trace), SMALL_CLUSTER, config))
    wide = inputs.jobs[3]
    annotations = wide.document["spec"]["template"]["metadata"]["annotations"]
    assert (wide.pods, wide.gpus_per_pod) == (4, 8)
    assert annotations == {
        "kueue.x-k8s.io/podset-required-topology": "cloud.provider.com/topology-spine",
        "kueue.x-k8s.io/podset-slice-required-topology": "cloud.provider.com/topology-rack",
        "kueue.x-k8s.io/podset-slice-size": "2",
    }


def test_until_stops_the_replay_and_leaves_the_rest_unfinished(small_trace: Path, config: SimConfig) -> None:
    result = replay_policy(StudySpec(str(small_trace), SMALL_CLUSTER, config, until=60.0), Policy.BESTFIT)
    assert [j.finished for j in result.jobs] == [None, 50.0, None, None, None]
    assert result.jobs[4].workload == 0  # never submitted
    assert result.lost == []
    assert metrics_of(result).never_placed == 1  # d was submitted and is still waiting


def test_limit_jobs_keeps_the_first_arrivals(small_trace: Path, config: SimConfig) -> None:
    inputs = build_inputs(StudySpec(str(small_trace), SMALL_CLUSTER, config, limit_jobs=2))
    assert [j.trace.job_id for j in inputs.jobs] == ["a", "b"]
