"""Team queues of a trace and their GPU quotas: each queue's guaranteed GPUs are the cluster's
GPUs in proportion to the queue's share of the replayed GPU time (Philly's virtual clusters are
its tenants, and their share of the work is what a quota would be sized by).

The replay submits each job to its queue's LocalQueue (the Kueue ``queue-name`` label), which
goes to the scheduler queue of that name (``team_queues``): one per team under a parent ``teams``,
each guaranteed its quota, so an idle team's GPUs are borrowed and reclaimed when it needs them.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from toposched.model import SchedulingQueue
from toposched.sim.clusters import GPU
from toposched.sim.trace import TraceJob


def quotas(jobs: Sequence[TraceJob], total_gpus: int) -> dict[str, int]:
    """GPUs per queue, proportional to GPU-seconds of the measured jobs (carried-in ones too:
    they are the queue's work as well), summing to ``total_gpus`` (largest remainders get the
    rounding); empty when no job names a queue."""
    work: dict[str, float] = {}
    for job in jobs:
        if job.queue is not None:
            work[job.queue] = work.get(job.queue, 0.0) + job.gpus * job.duration
    total = math.fsum(work.values())
    if not work or total <= 0:
        return {}
    exact = {q: total_gpus * w / total for q, w in work.items()}
    out = {q: math.floor(v) for q, v in exact.items()}
    left = total_gpus - sum(out.values())
    for q in sorted(exact, key=lambda q: (out[q] - exact[q], q))[:left]:
        out[q] += 1
    return dict(sorted(out.items()))


TEAMS = "teams"  # the parent of the team queues: it lends what a team leaves idle


def team_queues(quotas: Mapping[str, int]) -> list[SchedulingQueue]:
    """The scheduler queues for ``quotas`` (GPUs per team): a parent and a child per team."""
    if not quotas:
        return []
    children = [
        SchedulingQueue.parse({"name": name, "parent": TEAMS, "guaranteed": {GPU: gpus}})
        for name, gpus in quotas.items()
    ]
    return [SchedulingQueue.parse({"name": TEAMS}), *children]
