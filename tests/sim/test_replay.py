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
from toposched.sim.replay import Replay
from toposched.sim.study import StudySpec, build_inputs, replay_policy

from .conftest import SMALL_CLUSTER, write_trace


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
    # a and b prefer a rack (met: each fills one); c and e ask nothing; d requires the spine.
    assert (m.preferred_jobs, m.preferred_hit_share) == (2, 1.0)
    assert (m.evictions, m.replacements, m.lost_jobs, m.overcommits) == (0, 0, 0, 0)


def test_the_wide_job_requires_a_block_and_the_narrower_ones_prefer_a_rack(
    small_trace: Path, config: SimConfig
) -> None:
    inputs = build_inputs(StudySpec(str(small_trace), SMALL_CLUSTER, config))
    annotations = [j.document["spec"]["template"].get("metadata", {}).get("annotations") for j in inputs.jobs]
    assert (inputs.jobs[3].pods, inputs.jobs[3].gpus_per_pod) == (4, 8)
    rack, spine = "cloud.provider.com/topology-rack", "cloud.provider.com/topology-spine"
    assert annotations[3] == {"kueue.x-k8s.io/podset-required-topology": spine}
    assert annotations[0] == annotations[1] == {"kueue.x-k8s.io/podset-preferred-topology": rack}
    assert not annotations[2] and not annotations[4]  # one node each: no request


# Three racks of 18 four-GPU nodes in one block: j1, j2 and j3 leave 10, 5 and 3 nodes free;
# j4 (12 nodes) prefers a rack, none has room, so it spans two and the policies differ in the
# last one: BestFit takes the tightest that holds the remaining 2 nodes (r003), LeastFreeCapacity
# the next in its order (r002). Under the old default (a required rack for it) every Kueue
# ordering chose alike, so bestfit, leastfree and mixed replayed bit-identically.
SPLIT_TRACE = [("j1", 0, 100, 8, 4), ("j2", 0, 100, 13, 4), ("j3", 0, 100, 15, 4), ("j4", 1, 100, 12, 4)]


@pytest.mark.parametrize(
    ("policy", "last_rack"), [("bestfit", "r003"), ("mixed", "r003"), ("leastfree", "r002")]
)
def test_the_default_rules_let_the_kueue_orderings_differ(
    tmp_path: Path, config: SimConfig, policy: str, last_rack: str
) -> None:
    spec = StudySpec(str(write_trace(tmp_path / "split.csv", SPLIT_TRACE)), "nvl72:racks=3", config)
    inputs = build_inputs(spec)
    replay = Replay(inputs.cluster, inputs.shape, inputs.jobs, config, policy, until=50.0)
    replay.run()
    assert 3 in replay.usage, "j4 is not running at t=50"
    racks: dict[str, int] = {}
    for node, gpus in replay.usage[3].items():
        racks[node.split("-")[0]] = racks.get(node.split("-")[0], 0) + gpus // 4
    assert racks == {"r001": 10, last_rack: 2}


def test_until_stops_the_replay_and_leaves_the_rest_unfinished(small_trace: Path, config: SimConfig) -> None:
    result = replay_policy(StudySpec(str(small_trace), SMALL_CLUSTER, config, until=60.0), Policy.BESTFIT)
    assert [j.finished for j in result.jobs] == [None, 50.0, None, None, None]
    assert result.jobs[4].workload == 0  # never submitted
    assert result.lost == []
    assert metrics_of(result).never_placed == 1  # d was submitted and is still waiting


def test_limit_jobs_keeps_the_first_arrivals(small_trace: Path, config: SimConfig) -> None:
    inputs = build_inputs(StudySpec(str(small_trace), SMALL_CLUSTER, config, limit_jobs=2))
    assert [j.trace.job_id for j in inputs.jobs] == ["a", "b"]
