"""A study's figures over its replications: per policy, each metric's mean and 95% interval
(``stats``), per gang size bucket and per queue, and which policy is best on each metric."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from toposched.sim.metrics import LARGE_GPUS, GroupWaits, Metrics, by_queue, by_size, metrics_of
from toposched.sim.results import ReplayResult
from toposched.sim.stats import Interval, Verdict, interval, verdict


@dataclass(frozen=True, slots=True)
class Measure:
    """A metric the report compares: its key, title, direction and unit."""

    key: str
    title: str
    higher_is_better: bool
    unit: str  # "share" (0..1), "seconds" or "count"
    value: Callable[[Metrics], float | None]


MEASURES: tuple[Measure, ...] = (
    Measure("utilisation", "utilisation", True, "share", lambda m: m.utilisation),
    Measure("wait_mean", "wait mean", False, "seconds", lambda m: m.wait_mean),
    Measure("wait_p50", "wait p50", False, "seconds", lambda m: m.wait_p50),
    Measure("wait_p95", "wait p95", False, "seconds", lambda m: m.wait_p95),
    Measure("wait_p99", "wait p99", False, "seconds", lambda m: m.wait_p99),
    Measure("large_wait_p95", f"wait p95, {LARGE_GPUS}+ GPUs", False, "seconds", lambda m: m.large_wait_p95),
    Measure("preferred_hit_share", "preferred hit", True, "share", lambda m: m.preferred_hit_share),
    Measure("fragmented_gpus_mean", "fragmented GPUs", False, "count", lambda m: m.fragmented_gpus_mean),
    Measure("never_placed", "never placed", False, "count", lambda m: float(m.never_placed)),
)


@dataclass(frozen=True, slots=True)
class GroupSummary:
    """One group's waits over the replications (those with an admitted job of the group)."""

    jobs: Interval
    mean: Interval
    p95: Interval


@dataclass(frozen=True, slots=True)
class PolicySummary:
    policy: str
    runs: list[Metrics]  # one per replication, in seed order
    measures: dict[str, Interval]  # by ``Measure.key``; a measure with no value in any run is absent
    sizes: dict[str, GroupSummary]
    queues: dict[str, GroupSummary]


def summarise(results: Sequence[ReplayResult]) -> list[PolicySummary]:
    """Per policy (in the order first met), its replications' figures with their intervals."""
    by_policy: dict[str, list[ReplayResult]] = {}
    for result in results:
        by_policy.setdefault(result.policy, []).append(result)
    out = []
    for policy, runs in by_policy.items():
        runs = sorted(runs, key=lambda r: r.seed)
        metrics = [metrics_of(r) for r in runs]
        measures = {}
        for measure in MEASURES:
            values = [v for v in (measure.value(m) for m in metrics) if v is not None]
            if values:
                measures[measure.key] = interval(values)
        sizes = _groups([by_size(r) for r in runs])
        queues = _groups([by_queue(r) for r in runs])
        out.append(PolicySummary(policy, metrics, measures, sizes, queues))
    return out


def _groups(per_run: Sequence[dict[str, GroupWaits]]) -> dict[str, GroupSummary]:
    names: list[str] = []
    for groups in per_run:
        names += [n for n in groups if n not in names]
    out = {}
    for name in names:
        found = [g[name] for g in per_run if name in g]
        admitted = [g for g in found if g.admitted]
        jobs = interval([float(g.jobs) for g in found])
        if not admitted:
            out[name] = GroupSummary(jobs, Interval(0.0, None, 0), Interval(0.0, None, 0))
            continue
        out[name] = GroupSummary(
            jobs, interval([g.mean for g in admitted]), interval([g.p95 for g in admitted])
        )
    return out


def verdicts(summaries: Sequence[PolicySummary]) -> dict[str, Verdict]:
    """The best policy on each measure every policy has, against the runner-up, with their
    paired difference over the seeds both replayed."""
    by_policy = {s.policy: s for s in summaries}
    out = {}
    for measure in MEASURES:
        intervals = {s.policy: s.measures[measure.key] for s in summaries if measure.key in s.measures}
        if len(intervals) != len(summaries) or not intervals:
            continue
        found = verdict(intervals, higher_is_better=measure.higher_is_better)
        if found.runner_up is not None:
            found = replace(found, paired=_paired(measure, by_policy[found.best], by_policy[found.runner_up]))
        out[measure.key] = found
    return out


def _paired(measure: Measure, best: PolicySummary, other: PolicySummary) -> Interval | None:
    theirs = {m.seed: measure.value(m) for m in other.runs}
    differences = []
    for m in best.runs:
        mine, their = measure.value(m), theirs.get(m.seed)
        if mine is not None and their is not None:
            differences.append(mine - their)
    return interval(differences) if differences else None
