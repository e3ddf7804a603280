"""Every job of every replay as one CSV (``jobs.csv``): arrival, start, end and wait in trace
seconds (empty when the job never started or never ended), GPUs, queue, policy and seed.
Jobs carried into a window (running when it starts) are marked and are not in the figures."""

from __future__ import annotations

import csv
from collections.abc import Sequence
from pathlib import Path

from toposched.sim.results import ReplayResult

COLUMNS = ("policy", "seed", "job", "arrival_s", "start_s", "end_s", "wait_s", "gpus", "queue", "carried")


def write_jobs(path: Path, results: Sequence[ReplayResult]) -> int:
    """Write the table; returns its number of rows."""
    rows = 0
    with path.open("w", encoding="utf-8", newline="") as out:
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(COLUMNS)
        for result in results:
            for job in result.jobs:
                started = job.admitted
                writer.writerow(
                    (
                        result.policy,
                        result.seed,
                        job.index,
                        _seconds(job.submitted),
                        _seconds(started),
                        _seconds(job.finished),
                        _seconds(None if started is None else started - job.submitted),
                        job.gpus,
                        job.queue or "",
                        int(job.carried),
                    )
                )
                rows += 1
    return rows


def _seconds(value: float | None) -> str:
    if value is None:
        return ""
    return str(int(value)) if value == int(value) else f"{value:.3f}"
