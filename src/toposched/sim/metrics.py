"""The figures a replay is judged by, computed from its ``ReplayResult``.

* utilisation: GPUs in use / all GPUs, averaged over time (each sample holds until the next)
  while jobs arrive: from the first arrival to the last (the drain after it would dilute it);
* queue wait: first admission minus arrival, over the jobs admitted (mean, p50, p95, p99,
  percentiles interpolated linearly between ranks);
* preferred hit share: of the jobs admitted with a preferred level, the share placed inside one
  domain of that level;
* fragmentation: free GPUs that cannot host a whole-rack gang (on racks partly used or down),
  averaged over the same window;
* never placed, evictions, replacements, node failures; lost jobs and over-committed nodes
  (both must be 0).
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import asdict, dataclass

import numpy as np

from toposched.sim.results import ReplayResult


@dataclass(frozen=True, slots=True)
class Metrics:
    """One policy's figures (times in seconds, shares in 0..1)."""

    policy: str
    jobs: int
    admitted: int
    finished: int
    never_placed: int
    utilisation: float
    wait_mean: float
    wait_p50: float
    wait_p95: float
    wait_p99: float
    preferred_jobs: int
    preferred_hit_share: float | None
    fragmented_gpus_mean: float
    evictions: int
    replacements: int
    node_failures: int
    lost_jobs: int
    overcommits: int
    cycles: int
    cpu_seconds: float

    def as_json(self) -> dict[str, object]:
        return asdict(self)


def waits(result: ReplayResult) -> list[float]:
    """Queue wait of every admitted job, in job order."""
    return [j.admitted - j.submitted for j in result.jobs if j.admitted is not None]


def time_mean(times: Sequence[float], values: Sequence[float], end: float) -> float:
    """The mean of a step function (``values[i]`` from ``times[i]`` to the next time) over
    [first time, ``end``]; the first value when that span is empty."""
    if not times:
        return 0.0
    kept = max(1, bisect.bisect_right(times, end))
    t = np.asarray([*times[:kept], max(end, times[0])], dtype=float)
    span = t[-1] - t[0]
    if span <= 0:
        return float(values[0])
    return float(np.dot(np.diff(t), np.asarray(values[:kept], dtype=float)) / span)


def metrics_of(result: ReplayResult) -> Metrics:
    jobs = result.jobs
    waited = np.asarray(waits(result), dtype=float)
    p50, p95, p99 = (float(np.percentile(waited, q)) for q in (50, 95, 99)) if waited.size else (0.0,) * 3
    preferred = [j.preferred for j in jobs if j.preferred is not None]
    series = result.series
    window = result.last_arrival if series.time and result.last_arrival > series.time[0] else result.end
    used = time_mean(series.time, series.used_gpus, window)
    return Metrics(
        policy=result.policy,
        jobs=len(jobs),
        admitted=int(waited.size),
        finished=sum(1 for j in jobs if j.finished is not None),
        never_placed=sum(1 for j in jobs if j.workload and j.admitted is None),
        utilisation=used / result.total_gpus if result.total_gpus else 0.0,
        wait_mean=float(waited.mean()) if waited.size else 0.0,
        wait_p50=p50,
        wait_p95=p95,
        wait_p99=p99,
        preferred_jobs=len(preferred),
        preferred_hit_share=sum(preferred) / len(preferred) if preferred else None,
        fragmented_gpus_mean=time_mean(series.time, series.fragmented_gpus, window),
        evictions=sum(j.evictions for j in jobs),
        replacements=sum(j.replacements for j in jobs),
        node_failures=result.node_failures,
        lost_jobs=len(result.lost),
        overcommits=len(result.overcommits),
        cycles=result.cycles,
        cpu_seconds=result.cpu_seconds,
    )
