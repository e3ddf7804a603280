"""Job traces: CSV files → ``TraceJob`` rows (arrival, run time, GPUs).

All formats share the common columns (extra columns are ignored unless a format reads them)::

    job_id,submit_time_s,duration_s,num_pods,gpus_per_pod
    train-1,0,3600,2,8

``submit_time_s`` is the arrival in seconds from the start of the trace, ``duration_s`` the run
time once started, and the job needs ``num_pods * gpus_per_pod`` GPUs (regrouped into pods of
the simulated node shape by ``gangs``). Rows may come in any order; rows of 0 GPUs are skipped
(the simulator places GPUs only). An optional ``priority`` column (a whole number, 0 when absent
or empty) is the job's priority: higher ones go first and may preempt lower ones. An optional
``queue`` column (Philly's ``vc``, its virtual cluster, is read as one) names the team queue the
job is submitted to. Named formats:

* ``philly``: ``philly_2017w40-45.csv`` (Microsoft Philly, six weeks of 2017);
* ``alibaba``: ``alibaba_openb_default.csv`` (Alibaba PAI openb): a GPU-sharing pod
  (``gpu_milli`` < 1000) is simulated as one whole GPU;
* any other value is the path of a CSV with the common columns.

The file size and row count are bounded (``TraceLimits``) before anything is kept: reading stops
at ``max_bytes``. Times are finite and below ``MAX_SECONDS``, past which a float clock can no
longer add a second exactly; a field is at most ``csv.field_size_limit()`` (128 KiB) long.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from toposched.intake.parse import InputLimits, read_file
from toposched.model import Problem, SpecError
from toposched.sim.config import TraceLimits

COLUMNS = ("job_id", "submit_time_s", "duration_s", "num_pods", "gpus_per_pod")
MAX_PROBLEMS = 20  # problems listed for one file; the rest are counted
MAX_SECONDS = 1e12  # about 31,700 years; a float keeps sub-millisecond steps below it
MAX_PRIORITY = 1_000_000_000  # the largest priority a row may give, either sign


@dataclass(frozen=True, slots=True)
class TraceJob:
    """One job of a trace: arrival and run time in seconds, its GPUs in total, its priority."""

    job_id: str
    submit: float
    duration: float
    gpus: int
    priority: int = 0
    queue: str | None = None  # the team queue (``queue`` or Philly's ``vc`` column), normalised
    carried: bool = False  # running when a replayed window starts: submitted at its start, not measured


@dataclass(frozen=True, slots=True)
class Trace:
    """The jobs of a trace in arrival order, and how many rows were skipped (no GPU)."""

    name: str
    jobs: tuple[TraceJob, ...]
    skipped: int = 0


Row = Mapping[str, str]
GpuCount = Callable[[Row], int]  # row -> GPUs of the job; ValueError naming the column


def _common_gpus(row: Row) -> int:
    return _whole(row, "num_pods") * _whole(row, "gpus_per_pod")


def _alibaba_gpus(row: Row) -> int:
    gpus = _common_gpus(row)
    milli = row.get("gpu_milli", "").strip()
    if gpus == 0 and milli and int(float(milli)) > 0:
        return _whole(row, "num_pods")  # a share of one GPU: simulated as a whole one
    return gpus


NAMED: dict[str, tuple[str, GpuCount]] = {
    "philly": ("philly_2017w40-45.csv", _common_gpus),
    "alibaba": ("alibaba_openb_default.csv", _alibaba_gpus),
}


def load_trace(spec: str, limits: TraceLimits, *, max_jobs: int | None = None) -> Trace:
    """The trace ``spec`` names (``philly``, ``alibaba`` or a CSV path); ``SpecError`` for a
    missing file, a file over the limits or bad rows (each naming the line and column).
    ``max_jobs`` keeps the first jobs by arrival."""
    if spec in NAMED:
        file, gpus = NAMED[spec]
        if limits.directory is None:
            raise SpecError(
                [
                    Problem(
                        "traces.directory",
                        f"trace {spec!r} needs the folder holding {file}",
                        "set --trace-dir",
                    )
                ]
            )
        path = str(Path(limits.directory) / file)
    else:
        path, gpus = spec, _common_gpus
    bounds = InputLimits(max_bytes=limits.max_bytes, too_large_hint="raise traces.max_bytes")
    data = read_file(path, what="trace", limits=bounds)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise SpecError([Problem(path, "is not UTF-8 text", "give a CSV file")]) from None
    jobs, skipped = parse_rows(text, path, gpus, limits.max_rows)
    jobs.sort(key=lambda j: j.submit)  # stable: ties keep the file's order
    if max_jobs is not None:
        jobs = jobs[:max_jobs]
    return Trace(spec, tuple(jobs), skipped)


def parse_rows(text: str, source: str, gpus: GpuCount, max_rows: int) -> tuple[list[TraceJob], int]:
    """The GPU jobs of CSV ``text`` and the count of 0-GPU rows skipped."""
    reader = csv.DictReader(io.StringIO(text, newline=""))
    try:
        header = reader.fieldnames or ()
    except csv.Error as exc:
        raise _not_csv(source, 1, exc) from None
    missing = [c for c in COLUMNS if c not in header]
    if missing:
        raise SpecError(
            [
                Problem(
                    f"{source}:1",
                    f"missing column(s) {', '.join(missing)}",
                    f"start with {','.join(COLUMNS)}",
                )
            ]
        )
    jobs: list[TraceJob] = []
    problems: list[Problem] = []
    skipped = 0
    for count, row in enumerate(_checked(reader, source), start=1):
        if count > max_rows:
            raise SpecError([Problem(source, f"has more than {max_rows} rows", "raise traces.max_rows")])
        where = f"{source}:{reader.line_num}"
        try:
            job = TraceJob(
                job_id=row["job_id"] or f"row-{count}",
                submit=_seconds(row, "submit_time_s"),
                duration=_seconds(row, "duration_s"),
                gpus=gpus(row),
                priority=_priority(row),
                queue=_queue(row),
            )
        except ValueError as exc:
            if len(problems) < MAX_PROBLEMS:
                problems.append(Problem(where, str(exc), "fix the row or drop it"))
            else:
                problems[-1] = Problem(source, "more bad rows", "fix the rows listed first")
            continue
        if job.gpus == 0:
            skipped += 1
        else:
            jobs.append(job)
    if problems:
        raise SpecError(problems)
    return jobs, skipped


def _queue(row: Row) -> str | None:
    """The row's queue as a Kubernetes object name (lower case, ``-`` for anything else, at most
    63 characters): the ``queue`` column, else Philly's ``vc`` as ``vc-<hash>``; None when empty."""
    for column, prefix in (("queue", ""), ("vc", "vc-")):
        text = re.sub(r"[^a-z0-9-]+", "-", (row.get(column) or "").strip().lower()).strip("-")[:60]
        if text:
            return f"{prefix}{text}"
    return None


def _checked(reader: csv.DictReader[str], source: str) -> Iterator[Row]:
    """The rows of ``reader``; a row the csv module cannot read is a ``SpecError`` naming the
    line it starts on (a field over 128 KiB, often an unclosed quote swallowing what follows)."""
    start = reader.line_num + 1
    try:
        for row in reader:
            yield row
            start = reader.line_num + 1
    except csv.Error as exc:
        raise _not_csv(source, start, exc) from None


def _not_csv(source: str, line: int, exc: csv.Error) -> SpecError:
    return SpecError(
        [
            Problem(
                f"{source}:{line}",
                f"is not a CSV row: {exc}",
                "close the quotes that row opens, or shorten the field",
            )
        ]
    )


def _seconds(row: Row, column: str) -> float:
    text = (row.get(column) or "").strip()
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"{column}: {text!r} is not a number of seconds") from None
    if not 0 <= value < MAX_SECONDS:  # also refuses nan and inf
        raise ValueError(f"{column}: {text!r} must be 0 or more and less than {MAX_SECONDS:g} seconds")
    return value


def _priority(row: Row) -> int:
    text = (row.get("priority") or "").strip()
    if not text:
        return 0
    try:
        value = int(text)
    except ValueError:
        raise ValueError(f"priority: {text[:40]!r} is not a whole number") from None
    if abs(value) > MAX_PRIORITY:
        raise ValueError(f"priority: {value} must be between -{MAX_PRIORITY} and {MAX_PRIORITY}")
    return value


def _whole(row: Row, column: str) -> int:
    text = (row.get(column) or "").strip()
    try:
        value = int(text)
    except ValueError:
        raise ValueError(f"{column}: {text!r} is not a whole number") from None
    if value < 0:
        raise ValueError(f"{column}: {value} must be 0 or more")
    return value
