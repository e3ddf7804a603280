"""The figures a replay is judged by, computed from its ``ReplayResult``.

* utilisation: GPUs in use / all GPUs, averaged over time (each sample holds until the next)
  while jobs arrive: from the first arrival to the last (the drain after it would dilute it);
* queue wait: first admission minus arrival, over the jobs admitted (mean, p50, p95, p99,
  percentiles interpolated linearly between ranks), also per gang size (``SIZE_BUCKETS``) and
  per queue, and the p95 wait of large gangs (``LARGE_GPUS`` or more, the figure our own policy
  is judged by); jobs carried into a window (running when it starts) are not counted;
* preferred hit share: of the jobs admitted with a preferred level, the share placed inside one
  domain of that level;
* fragmentation: free GPUs that cannot host a whole-rack gang (on racks partly used or down),
  averaged over the same window;
* never placed, evictions, replacements, node failures; lost jobs and over-committed nodes
  (both must be 0).
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass

import numpy as np

from toposched.sim.results import JobRecord, ReplayResult


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
    large_wait_p95: float | None  # gangs of LARGE_GPUS or more; None when the trace has none
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
    seed: int = 0
    averaged_from: float = 0.0  # the time averages' window: first event to last arrival (seconds)
    averaged_to: float = 0.0

    def as_json(self) -> dict[str, object]:
        return asdict(self)


# Gang sizes in GPUs: (label, fewest, most; None = no upper bound). One node, a few nodes, up to
# most of an NVL72 rack (72 GPUs) or a DGX SuperPOD scalable unit, several racks, a large share of
# the cluster.
SIZE_BUCKETS: tuple[tuple[str, int, int | None], ...] = (
    ("1", 1, 1),
    ("2-7", 2, 7),
    ("8-63", 8, 63),
    ("64-255", 64, 255),
    ("256+", 256, None),
)


LARGE_GPUS = 64  # a large gang: most of an NVL72 rack or more


def size_bucket(gpus: int) -> str:
    """The label of the ``SIZE_BUCKETS`` entry holding a gang of ``gpus`` GPUs."""
    for label, low, high in SIZE_BUCKETS:
        if gpus >= low and (high is None or gpus <= high):
            return label
    return SIZE_BUCKETS[0][0]  # 0 GPUs: never in a replay (such rows are skipped)


@dataclass(frozen=True, slots=True)
class GroupWaits:
    """Queue waits of one group of jobs (a size bucket, a queue)."""

    jobs: int
    admitted: int
    mean: float
    p95: float


def measured(result: ReplayResult) -> list[JobRecord]:
    """The jobs the figures are about: all but those carried into a window."""
    return [j for j in result.jobs if not j.carried]


def waits(result: ReplayResult) -> list[float]:
    """Queue wait of every measured admitted job, in job order."""
    return [j.admitted - j.submitted for j in measured(result) if j.admitted is not None]


def waits_by(result: ReplayResult, key: Callable[[JobRecord], str]) -> dict[str, GroupWaits]:
    """Waits per group of measured jobs (``key``: the group of a job); groups in sorted order."""
    groups: dict[str, list[JobRecord]] = {}
    for job in measured(result):
        groups.setdefault(key(job), []).append(job)
    out = {}
    for name in sorted(groups):
        jobs = groups[name]
        waited = np.asarray([j.admitted - j.submitted for j in jobs if j.admitted is not None], dtype=float)
        mean = float(waited.mean()) if waited.size else 0.0
        p95 = float(np.percentile(waited, 95)) if waited.size else 0.0
        out[name] = GroupWaits(len(jobs), int(waited.size), mean, p95)
    return out


def by_size(result: ReplayResult) -> dict[str, GroupWaits]:
    """Waits per ``SIZE_BUCKETS`` entry, in the buckets' order (empty buckets left out)."""
    found = waits_by(result, lambda j: size_bucket(j.gpus))
    return {label: found[label] for label, _, _ in SIZE_BUCKETS if label in found}


def by_queue(result: ReplayResult) -> dict[str, GroupWaits]:
    """Waits per team queue; empty when the trace names no queue."""
    if all(j.queue is None for j in result.jobs):
        return {}
    return waits_by(result, lambda j: j.queue or "-")


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
    jobs = measured(result)
    waited = np.asarray(waits(result), dtype=float)
    p50, p95, p99 = (float(np.percentile(waited, q)) for q in (50, 95, 99)) if waited.size else (0.0,) * 3
    large = [j.admitted - j.submitted for j in jobs if j.gpus >= LARGE_GPUS and j.admitted is not None]
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
        large_wait_p95=float(np.percentile(large, 95)) if large else None,
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
        seed=result.seed,
        averaged_from=series.time[0] if series.time else 0.0,
        averaged_to=max(window, series.time[0]) if series.time else 0.0,
    )
