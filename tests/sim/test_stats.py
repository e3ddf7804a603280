"""Confidence intervals and verdicts, checked against figures worked out by hand."""

from __future__ import annotations

import math

import pytest

from toposched.sim.metrics import Metrics
from toposched.sim.report import verdict_lines
from toposched.sim.stats import Interval, interval, t_quantile, verdict
from toposched.sim.summary import PolicySummary, verdicts


@pytest.mark.parametrize(
    ("df", "expected"),
    [(1, 12.7062), (2, 4.3027), (4, 2.7764), (9, 2.2622), (29, 2.0452), (120, 1.9799)],
)
def test_t_quantiles_match_the_printed_table(df: int, expected: float) -> None:
    assert t_quantile(df) == pytest.approx(expected, abs=5e-5)


def test_a_hand_computed_interval() -> None:
    # 1..5: mean 3, s^2 = (4 + 1 + 0 + 1 + 4) / 4 = 2.5, t(0.975, 4) = 2.776445,
    # half-width = 2.776445 * sqrt(2.5 / 5) = 1.963243.
    found = interval([1.0, 2.0, 3.0, 4.0, 5.0])
    assert found.mean == 3.0 and found.n == 5
    assert found.half == pytest.approx(2.776445 * math.sqrt(0.5), abs=1e-5)
    assert found.half == pytest.approx(1.963243, abs=1e-5)
    assert interval([7.0]) == Interval(7.0, None, 1)  # one replication: no spread to speak of
    assert interval([2.0, 2.0, 2.0]).half == 0.0


def test_the_verdict_says_no_difference_when_the_intervals_overlap() -> None:
    close = {"a": Interval(10.0, 2.0, 5), "b": Interval(13.0, 2.0, 5), "c": Interval(30.0, 1.0, 5)}
    lower = verdict(close, higher_is_better=False)
    assert (lower.best, lower.runner_up, lower.difference, lower.distinct) == ("a", "b", -3.0, False)
    apart = {"a": Interval(10.0, 1.0, 5), "b": Interval(13.0, 1.0, 5)}
    assert verdict(apart, higher_is_better=False).distinct
    higher = verdict(apart, higher_is_better=True)
    assert (higher.best, higher.difference, higher.distinct) == ("b", 3.0, True)
    assert not verdict(
        {"a": Interval(1.0, None, 1), "b": Interval(5.0, None, 1)}, higher_is_better=True
    ).distinct


def _metrics(policy: str, seed: int, wait: float) -> Metrics:
    return Metrics(
        policy, 1, 1, 1, 0, 0.5, wait, wait, wait, wait, None, 0, None, 0.0, 0, 0, 0, 0, 0, 1, 0.0, seed
    )


def test_the_verdict_pairs_the_policies_seed_by_seed() -> None:
    # Both policies see the same jobs per seed: a's waits are b's minus 10 s on every seed, so
    # their own intervals overlap widely but the paired difference is -10 s exactly.
    a = [_metrics("a", s, w) for s, w in enumerate((100.0, 500.0, 900.0))]
    b = [_metrics("b", s, w + 10) for s, w in enumerate((100.0, 500.0, 900.0))]
    summaries = [
        PolicySummary(p, runs, {"wait_mean": interval([m.wait_mean for m in runs])}, {}, {})
        for p, runs in (("a", a), ("b", b))
    ]
    found = verdicts(summaries)["wait_mean"]
    assert (found.best, found.runner_up, found.distinct) == ("a", "b", False)
    assert found.paired == Interval(-10.0, 0.0, 3)
    [line] = [line for line in verdict_lines(summaries) if line.startswith("- wait mean")]
    assert "no difference" in line and "paired by seed, a minus b: -10 s ± 0 s, an interval without 0" in line
