"""What one replication replays of a trace: a window of it and a scaled arrival rate.

* ``--window SECONDS``: the jobs arriving within a window of that many seconds of trace time,
  its start drawn uniformly from the replication's seed (so each replication replays another
  stretch of the trace). The jobs running when the window starts (arrived before it, arrival
  plus run time after it: the trace does not say when a job started, so it is taken to have run
  from its arrival) are submitted at its start with the run time they have left, marked
  ``carried``: they occupy the cluster as they did, and are left out of the job figures.
  Times are then counted from the window's start.
* ``--load F``: every arrival's distance from the first one divided by ``F`` (``F`` = 2 doubles
  the arrival rate); run times are kept. Applied after the window is cut.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import replace

from toposched.model import Problem, SpecError
from toposched.sim.trace import TraceJob

MAX_LOAD = 1_000.0


def check_load(load: float) -> None:
    """``SpecError`` for a load factor that is not a finite positive number up to ``MAX_LOAD``."""
    if not (math.isfinite(load) and 0 < load <= MAX_LOAD):
        raise SpecError([Problem("--load", f"{load} is not in (0, {MAX_LOAD:g}]", "e.g. --load 1.5")])


def cut_window(jobs: Sequence[TraceJob], window: float, seed: int) -> tuple[list[TraceJob], float]:
    """The jobs of a ``window``-second stretch drawn from ``seed`` (running ones carried in), and
    the window's start in trace time. ``jobs`` in arrival order."""
    if not (math.isfinite(window) and window > 0):
        raise SpecError([Problem("--window", f"{window} is not a positive number of seconds", "e.g. 172800")])
    if not jobs:
        return [], 0.0
    first, last = jobs[0].submit, jobs[-1].submit
    start = first + random.Random(seed).uniform(0.0, max(0.0, last - first - window))
    end = start + window
    carried = [
        replace(j, submit=0.0, duration=j.submit + j.duration - start, carried=True)
        for j in jobs
        if j.submit < start < j.submit + j.duration
    ]
    inside = [replace(j, submit=j.submit - start) for j in jobs if start <= j.submit < end]
    return carried + inside, start


def scale_load(jobs: Sequence[TraceJob], load: float) -> list[TraceJob]:
    """``jobs`` with inter-arrival times divided by ``load`` (counted from the first arrival)."""
    check_load(load)
    if load == 1.0 or not jobs:
        return list(jobs)
    first = jobs[0].submit
    return [replace(j, submit=first + (j.submit - first) / load) for j in jobs]
