"""A study: one trace on one cluster under several policies, each replayed in its own process.

Workers rebuild the inputs from the ``StudySpec`` (a few small values) rather than receiving
them pickled, and report progress through a queue the caller drains.
"""

from __future__ import annotations

import multiprocessing
import queue
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any

from toposched.model import Cluster
from toposched.sim.clusters import load_sim_cluster
from toposched.sim.config import SimConfig
from toposched.sim.failures import FailurePlan
from toposched.sim.gangs import Shape, SimJob, shape_of, sim_jobs
from toposched.sim.replay import Replay
from toposched.sim.results import ReplayResult
from toposched.sim.trace import load_trace

OnProgress = Callable[[str, int], None]  # (policy, jobs submitted so far)


@dataclass(frozen=True, slots=True)
class StudySpec:
    """What to replay: a trace and a cluster as the command line names them, the configuration,
    and bounds on the replay (the first ``limit_jobs`` jobs, ``until`` seconds of trace time)."""

    trace: str
    cluster: str
    config: SimConfig
    limit_jobs: int | None = None
    until: float | None = None


@dataclass(frozen=True, slots=True)
class Inputs:
    """A study's inputs, built once per process."""

    cluster: Cluster
    shape: Shape
    jobs: list[SimJob]
    failures: FailurePlan
    skipped: int  # trace rows without GPUs


def build_inputs(spec: StudySpec) -> Inputs:
    """Read the trace and the cluster, map the jobs and plan the failures: from the first arrival
    to the last job's end (or ``until``), refused when they would be too many."""
    trace = load_trace(spec.trace, spec.config.traces, max_jobs=spec.limit_jobs)
    cluster = load_sim_cluster(spec.cluster)
    shape = shape_of(cluster, spec.config)
    jobs = sim_jobs(trace.jobs, shape)
    last = max(trace.jobs, key=lambda j: j.submit + j.duration, default=None)
    end = last.submit + last.duration if last is not None else 0.0
    start = trace.jobs[0].submit if trace.jobs else 0.0
    if spec.until is not None and spec.until < end:
        end, why = spec.until, "--until"
    else:
        why = f"job {last.job_id!r} ends then" if last is not None else "no job"
    failures = FailurePlan.of((n.name for n in cluster.nodes), spec.config.failures, start, end)
    failures.check(why)
    return Inputs(cluster, shape, jobs, failures, trace.skipped)


def replay_policy(
    spec: StudySpec, policy: str, inputs: Inputs | None = None, progress: OnProgress | None = None
) -> ReplayResult:
    """One policy's replay (in this process)."""
    built = inputs or build_inputs(spec)
    replay = Replay(
        built.cluster,
        built.shape,
        built.jobs,
        spec.config,
        policy,
        failures=built.failures.changes(),
        until=spec.until,
    )
    return replay.run(None if progress is None else lambda done: progress(str(policy), done))


def _worker(spec: StudySpec, policy: str, updates: Any) -> ReplayResult:
    return replay_policy(spec, policy, progress=lambda name, done: updates.put((name, done)))


def run_study(
    spec: StudySpec,
    policies: Sequence[str],
    *,
    workers: int,
    on_progress: OnProgress | None = None,
) -> list[ReplayResult]:
    """Every policy's replay, in the order given; with ``workers`` > 1 in that many processes."""
    if workers <= 1 or len(policies) <= 1:
        inputs = build_inputs(spec)
        return [replay_policy(spec, p, inputs, on_progress) for p in policies]
    with multiprocessing.Manager() as manager:
        updates = manager.Queue()
        with ProcessPoolExecutor(max_workers=min(workers, len(policies))) as pool:
            futures = [pool.submit(_worker, spec, p, updates) for p in policies]
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
