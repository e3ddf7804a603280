"""A study: one trace on one cluster under several policies and replications (seeds), each
replay in its own process.

Workers rebuild the inputs from the ``StudySpec`` (a few small values) rather than receiving
them pickled, and report progress through a queue the caller drains.
"""

from __future__ import annotations

import multiprocessing
import queue
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from toposched.model import Cluster, Problem, SpecError
from toposched.sim.arrivals import cut_window, scale_load
from toposched.sim.clusters import largest_domain_gpus, load_sim_cluster, total_gpus
from toposched.sim.config import SimConfig
from toposched.sim.failures import FailurePlan
from toposched.sim.gangs import Shape, SimJob, shape_of, sim_jobs
from toposched.sim.generate import generate_trace, is_generated
from toposched.sim.queues import quotas
from toposched.sim.replay import Replay
from toposched.sim.results import ReplayResult
from toposched.sim.trace import load_trace

OnProgress = Callable[[str, int], None]  # (task: policy and seed, jobs submitted so far)


@dataclass(frozen=True, slots=True)
class StudySpec:
    """What to replay: a trace and a cluster as the command line names them, the configuration,
    bounds on the replay (the first ``limit_jobs`` jobs, ``until`` seconds of trace time), the
    arrival-rate factor ``load``, the ``window`` of trace seconds each replication replays, and
    ``seeds`` replications seeded ``seed``, ``seed + 1``, ..."""

    trace: str
    cluster: str
    config: SimConfig
    limit_jobs: int | None = None
    until: float | None = None
    load: float = 1.0
    window: float | None = None
    seeds: int = 1
    seed: int = 0

    def replication_seed(self, replication: int) -> int:
        return self.seed + replication


@dataclass(frozen=True, slots=True)
class Inputs:
    """One replication's inputs, built once per process."""

    cluster: Cluster
    shape: Shape
    jobs: list[SimJob]
    failures: FailurePlan
    skipped: int  # trace rows without GPUs
    seed: int = 0
    window_start: float | None = None  # in trace seconds, with ``--window``
    quotas: dict[str, int] = field(default_factory=dict)  # guaranteed GPUs per queue


def check_replications(spec: StudySpec) -> None:
    """``SpecError`` when the replications could not differ: a fixed trace, no window and no
    node failures replay the same jobs the same way every time."""
    varies = (
        is_generated(spec.trace) or spec.window is not None or spec.config.failures.node_failures_per_day > 0
    )
    if spec.seeds > 1 and not varies:
        raise SpecError(
            [
                Problem(
                    "--seeds",
                    f"{spec.seeds} replications of one fixed trace would all be the same",
                    "give --window SECONDS to replay another stretch of the trace each time,"
                    " or a generated trace (--trace llm:jobs=N)",
                )
            ]
        )


def build_inputs(spec: StudySpec, replication: int = 0) -> Inputs:
    """Read (or generate) the trace and the cluster, cut the replication's window, scale the
    arrivals, map the jobs and plan the failures: from the first arrival to the last job's end
    (or ``until``), refused when they would be too many."""
    check_replications(spec)
    seed = spec.replication_seed(replication)
    cluster = load_sim_cluster(spec.cluster)
    shape = shape_of(cluster, spec.config)
    limits = spec.config.traces
    if is_generated(spec.trace):
        # The widest gang fits one block: the default rules require one above a rack's size.
        levels = shape.topology.levels
        widest = largest_domain_gpus(cluster, levels[-3] if len(levels) >= 3 else None)
        trace = generate_trace(spec.trace, widest, total_gpus(cluster), seed, limits.max_rows)
    else:
        trace = load_trace(spec.trace, limits)
    rows, start = list(trace.jobs), None
    if spec.window is not None:
        rows, start = cut_window(rows, spec.window, seed)
    rows = scale_load(rows, spec.load)
    if spec.limit_jobs is not None:
        rows = rows[: spec.limit_jobs]
    jobs = sim_jobs(rows, shape)
    last = max(rows, key=lambda j: j.submit + j.duration, default=None)
    end = last.submit + last.duration if last is not None else 0.0
    first = rows[0].submit if rows else 0.0
    if spec.until is not None and spec.until < end:
        end, why = spec.until, "--until"
    else:
        why = f"job {last.job_id!r} ends then" if last is not None else "no job"
    settings = spec.config.failures
    settings = settings.model_copy(update={"seed": settings.seed + seed})
    failures = FailurePlan.of((n.name for n in cluster.nodes), settings, first, end)
    failures.check(why)
    return Inputs(
        cluster, shape, jobs, failures, trace.skipped, seed, start, quotas(rows, total_gpus(cluster))
    )


def replay_policy(
    spec: StudySpec,
    policy: str,
    inputs: Inputs | None = None,
    progress: OnProgress | None = None,
    replication: int = 0,
) -> ReplayResult:
    """One policy's replay of one replication (in this process)."""
    built = inputs or build_inputs(spec, replication)
    replay = Replay(
        built.cluster,
        built.shape,
        built.jobs,
        spec.config,
        policy,
        failures=built.failures.changes(),
        until=spec.until,
        quotas=built.quotas,
    )
    result = replay.run(
        None if progress is None else lambda done: progress(task_name(policy, built.seed), done)
    )
    result.seed = built.seed
    return result


def task_name(policy: str, seed: int) -> str:
    return f"{policy} s{seed}"


def _worker(spec: StudySpec, policy: str, replication: int, updates: Any) -> ReplayResult:
    return replay_policy(
        spec, policy, progress=lambda name, done: updates.put((name, done)), replication=replication
    )


def run_study(
    spec: StudySpec,
    policies: Sequence[str],
    *,
    workers: int,
    on_progress: OnProgress | None = None,
) -> list[ReplayResult]:
    """Every policy's replay of every replication, replication by replication, policies in the
    order given; with ``workers`` > 1 in that many processes."""
    tasks = [(p, r) for r in range(spec.seeds) for p in policies]
    if workers <= 1 or len(tasks) <= 1:
        results = []
        for r in range(spec.seeds):
            inputs = build_inputs(spec, r)
            results += [replay_policy(spec, p, inputs, on_progress, r) for p in policies]
        return results
    with multiprocessing.Manager() as manager:
        updates = manager.Queue()
        with ProcessPoolExecutor(max_workers=min(workers, len(tasks))) as pool:
            futures = [pool.submit(_worker, spec, p, r, updates) for p, r in tasks]
            while not all(f.done() for f in futures):
                _drain(updates, on_progress, wait=0.2)
            _drain(updates, on_progress, wait=0.0)
            return [f.result() for f in futures]  # re-raises a worker's error, typed as it was


def _drain(updates: Any, on_progress: OnProgress | None, *, wait: float) -> None:
    try:
        name, done = updates.get(timeout=wait) if wait else updates.get_nowait()
        while True:
            if on_progress is not None:
                on_progress(name, done)
            name, done = updates.get_nowait()
    except queue.Empty:
        return
