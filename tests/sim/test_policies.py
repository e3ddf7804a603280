"""The policies a replay compares: each upstream ordering queued as the service queues by
default, and ``toposched`` (Kueue's mixed ordering with quota reservations)."""

from __future__ import annotations

from pathlib import Path

import pytest

from toposched.model import SpecError
from toposched.sim.config import SimConfig
from toposched.sim.policies import OWN, sim_policies, sim_policy
from toposched.sim.replay import scheduler_config
from toposched.sim.study import StudySpec, replay_policy

from .conftest import SMALL_CLUSTER


def test_each_policy_is_an_ordering_with_a_way_of_queueing() -> None:
    names = [p.name for p in sim_policies()]
    assert names == ["mixed", "bestfit", "leastfree", "balanced", "binpack", "spread", OWN]
    for name in names:
        config = scheduler_config(SimConfig(), name)
        assert config.policy == ("mixed" if name == OWN else name)
        assert config.quota_reservations is (name == OWN)
    assert scheduler_config(SimConfig(), None).policy is None


def test_an_unknown_policy_names_the_option_and_the_known_ones() -> None:
    with pytest.raises(SpecError) as caught:
        sim_policy("fastest")
    [problem] = caught.value.problems
    assert problem.path == "--policy" and problem.hint.endswith("spread, toposched")


def test_without_queues_toposched_replays_as_mixed(tmp_path: Path, config: SimConfig) -> None:
    # No queue column: every job goes to the unlimited default queue, nothing waits for quota,
    # so the quota reservations never apply and the replay is Kueue's mixed ordering's.
    trace = tmp_path / "trace.csv"
    trace.write_text(
        "job_id,submit_time_s,duration_s,num_pods,gpus_per_pod\n"
        "a,0,100,2,8\nb,0,50,2,8\nc,10,40,1,8\nd,20,10,4,8\ne,120,10,1,8\n",
        encoding="utf-8",
    )
    spec = StudySpec(str(trace), SMALL_CLUSTER, config)
    ours, theirs = replay_policy(spec, OWN), replay_policy(spec, "mixed")
    assert ours.policy == OWN
    assert [(j.admitted, j.finished) for j in ours.jobs] == [(j.admitted, j.finished) for j in theirs.jobs]
