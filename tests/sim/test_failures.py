"""Failure injection: nodes fail and recover during the replay; gangs on a failed node are
replaced or evicted and re-admitted, and no job is lost or node over-committed."""

from __future__ import annotations

import random
from pathlib import Path

from toposched.model import Policy
from toposched.sim.config import parse_config
from toposched.sim.failures import failure_schedule
from toposched.sim.metrics import metrics_of
from toposched.sim.study import StudySpec, replay_policy

from .conftest import write_trace


def _busy_trace(path: Path) -> Path:
    """120 jobs of 1 to 32 GPUs over a day on 144 GPUs: racks stay busy, so failures hit gangs."""
    rng = random.Random(7)
    rows = []
    for i in range(120):
        gpus = rng.choice((1, 2, 4, 4, 8, 16, 32))
        pods, per_pod = (gpus // 4, 4) if gpus > 4 else (1, gpus)
        rows.append((f"job-{i}", i * 600, rng.randint(1800, 14_400), pods, per_pod))
    return write_trace(path, rows)


def test_a_replay_with_node_failures_loses_no_job_and_overcommits_no_node(tmp_path: Path) -> None:
    config = parse_config(
        {"failures": {"node_failures_per_day": 2.0, "recovery_seconds": 1800, "seed": 3}},
    )
    spec = StudySpec(str(_busy_trace(tmp_path / "busy.csv")), "nvl72:racks=2", config)
    result = replay_policy(spec, Policy.BESTFIT)
    m = metrics_of(result)
    assert m.node_failures > 0
    assert m.evictions + m.replacements > 0  # the failures did hit running gangs
    assert result.lost == []
    assert result.overcommits == []
    assert m.finished == m.jobs == 120  # every evicted job ran again to its end


def test_the_failure_schedule_is_reproducible_from_its_seed() -> None:
    settings = parse_config({"failures": {"node_failures_per_day": 1.0, "seed": 11}}).failures
    nodes = [f"n{i}" for i in range(20)]
    first = failure_schedule(nodes, settings, horizon=5 * 86_400)
    assert first == failure_schedule(reversed(nodes), settings, horizon=5 * 86_400)
    assert first != failure_schedule(nodes, settings.model_copy(update={"seed": 12}), horizon=5 * 86_400)
    downs = [c for c in first if not c.ready]
    assert downs and all(c.time < 5 * 86_400 for c in downs)
    assert len(downs) == sum(1 for c in first if c.ready)  # every failed node comes back


def test_no_failures_at_rate_zero() -> None:
    assert failure_schedule(["n1"], parse_config(None).failures, horizon=1e9) == []
