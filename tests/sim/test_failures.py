"""Failure injection: nodes fail and recover during the replay; gangs on a failed node are
replaced or evicted and re-admitted, and no job is lost or node over-committed."""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterable
from pathlib import Path

import pytest

from toposched.model import Policy, SpecError
from toposched.sim.config import FailureSettings, load_config, parse_config
from toposched.sim.failures import FailurePlan, NodeChange
from toposched.sim.metrics import metrics_of
from toposched.sim.study import StudySpec, build_inputs, replay_policy

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


def _schedule(nodes: Iterable[str], settings: FailureSettings, horizon: float) -> list[NodeChange]:
    return list(FailurePlan.of(nodes, settings, 0.0, horizon).changes())


def test_the_failure_schedule_is_reproducible_from_its_seed() -> None:
    settings = parse_config({"failures": {"node_failures_per_day": 1.0, "seed": 11}}).failures
    nodes = [f"n{i}" for i in range(20)]
    first = _schedule(nodes, settings, horizon=5 * 86_400)
    assert first == _schedule(reversed(nodes), settings, horizon=5 * 86_400)
    assert first != _schedule(nodes, settings.model_copy(update={"seed": 12}), horizon=5 * 86_400)
    assert first == sorted(first)  # in time order
    downs = [c for c in first if not c.ready]
    assert downs and all(c.time < 5 * 86_400 for c in downs)
    assert len(downs) == sum(1 for c in first if c.ready)  # every failed node comes back
    for node in nodes:  # each node alternates: down, up, down, up...
        states = [c.ready for c in first if c.node == node]
        assert states == [False, True] * (len(states) // 2)


def test_no_failures_at_rate_zero() -> None:
    assert _schedule(["n1"], parse_config(None).failures, horizon=1e9) == []


def test_failures_are_drawn_as_the_replay_consumes_them() -> None:
    """A span of 3,000 years on 1,000 nodes holds about 55 million failures: the first few come
    at once, without the rest being drawn (the whole list took gigabytes, then MemoryError)."""
    settings = parse_config({"failures": {"node_failures_per_day": 0.05}}).failures
    plan = FailurePlan.of((f"n{i}" for i in range(1000)), settings, 0.0, 1e11)
    assert plan.expected_failures() > 5e7
    first = list(itertools.islice(plan.changes(), 100))
    assert len(first) == 100 and first == sorted(first)


def test_a_far_off_trace_row_with_failures_is_refused_before_the_replay(tmp_path: Path) -> None:
    """The example configuration plus one row 1,600 years on: about 115,000 failures of 4 nodes
    expected, past max_failures (the schedule grew without bound, then MemoryError)."""
    example = Path(__file__).resolve().parents[2] / "examples" / "sim"
    rows = (example / "trace.csv").read_text(encoding="utf-8") + "far,5e10,10,1,8\n"
    trace = tmp_path / "far.csv"
    trace.write_text(rows, encoding="utf-8")
    config = load_config(str(example / "config.yaml"))
    spec = StudySpec(str(trace), "dgx:racks=2,nodes_per_rack=2", config)
    with pytest.raises(SpecError) as exc:
        build_inputs(spec)
    [problem] = exc.value.problems
    assert problem.path == "failures.node_failures_per_day"
    assert "job 'far' ends then" in problem.message and "the limit is 100000" in problem.message
    assert "--until" in problem.hint
    until = StudySpec(str(trace), "dgx:racks=2,nodes_per_rack=2", config, until=86_400.0)
    assert build_inputs(until).failures.expected_failures() < 1  # a shorter span is accepted
