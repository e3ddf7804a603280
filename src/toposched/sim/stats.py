"""Confidence intervals over replications, and the verdict of a comparison.

A metric measured once per replication (seed) is reported as its mean and the half-width of a
95% confidence interval, ``t(0.975, n - 1) * s / sqrt(n)`` with ``s`` the sample standard
deviation (Student's t: the replications are few, and each is one independent draw). The t
quantile comes from the exact distribution function for whole degrees of freedom (Abramowitz
and Stegun 26.7.3 and 26.7.4), inverted by bisection: numpy has none, and one function does not
justify scipy.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

LEVEL = 0.95
MAX_REPLICATIONS = 1_000  # bounds the series the distribution function sums


@dataclass(frozen=True, slots=True)
class Interval:
    """A mean and the half-width of its 95% interval (None with one replication: no spread)."""

    mean: float
    half: float | None
    n: int

    @property
    def low(self) -> float:
        return self.mean - (self.half or 0.0)

    @property
    def high(self) -> float:
        return self.mean + (self.half or 0.0)

    def overlaps(self, other: Interval) -> bool:
        """True when the two intervals share a point, or either has none (one replication)."""
        if self.half is None or other.half is None:
            return True
        return self.low <= other.high and other.low <= self.high


def t_two_sided(t: float, df: int) -> float:
    """P(|T| < t) for Student's t with ``df`` degrees of freedom (1 <= df <= MAX_REPLICATIONS)."""
    if not 1 <= df <= MAX_REPLICATIONS:
        raise ValueError(f"degrees of freedom {df} outside 1..{MAX_REPLICATIONS}")
    theta = math.atan(t / math.sqrt(df))
    cos2, sin = math.cos(theta) ** 2, math.sin(theta)
    if df % 2:  # odd: 2/pi (theta + sin cos (1 + 2/3 cos^2 + 2*4/(3*5) cos^4 + ...))
        term, total = 1.0, 1.0 if df > 1 else 0.0
        for k in range(1, (df - 1) // 2):
            term *= cos2 * (2 * k) / (2 * k + 1)
            total += term
        return 2 / math.pi * (theta + sin * math.cos(theta) * total)
    term, total = 1.0, 1.0  # even: sin (1 + 1/2 cos^2 + 1*3/(2*4) cos^4 + ...)
    for k in range(1, df // 2):
        term *= cos2 * (2 * k - 1) / (2 * k)
        total += term
    return sin * total


def t_quantile(df: int, level: float = LEVEL) -> float:
    """The t with P(|T| < t) = ``level`` (2.776 for 4 degrees of freedom at 95%)."""
    low, high = 0.0, 1.0
    while t_two_sided(high, df) < level:
        high *= 2
    for _ in range(100):
        mid = (low + high) / 2
        low, high = (mid, high) if t_two_sided(mid, df) < level else (low, mid)
    return (low + high) / 2


def interval(values: Sequence[float]) -> Interval:
    """The mean of ``values`` (one per replication) and its 95% interval."""
    n = len(values)
    if n == 0:
        raise ValueError("no replication to summarise")
    if n > MAX_REPLICATIONS:
        raise ValueError(f"{n} replications, at most {MAX_REPLICATIONS}")
    mean = math.fsum(values) / n
    if n == 1:
        return Interval(mean, None, 1)
    variance = math.fsum((v - mean) ** 2 for v in values) / (n - 1)
    return Interval(mean, t_quantile(n - 1) * math.sqrt(variance / n), n)


@dataclass(frozen=True, slots=True)
class Verdict:
    """The best policy on one metric and how it compares with the runner-up."""

    best: str
    runner_up: str | None
    difference: float  # best minus runner-up (negative when lower is better)
    distinct: bool  # the two 95% intervals do not overlap
    # Best minus runner-up seed by seed: every policy replays the same jobs for a seed, so the
    # paired differences vary far less than either policy's figures (None: not computed).
    paired: Interval | None = None


def verdict(intervals: dict[str, Interval], *, higher_is_better: bool) -> Verdict:
    """The policy with the best mean (ties: the first given) against the next best."""
    ranked = sorted(intervals, key=lambda p: -intervals[p].mean if higher_is_better else intervals[p].mean)
    best = ranked[0]
    if len(ranked) == 1:
        return Verdict(best, None, 0.0, False)
    second = ranked[1]
    a, b = intervals[best], intervals[second]
    return Verdict(best, second, a.mean - b.mean, not a.overlaps(b))
