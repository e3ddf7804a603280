"""``toposched simulate``: replay a job trace through the scheduler under several policies and
replications and write ``metrics.json``, ``report.md``, ``jobs.csv`` and PNG plots to
``--out``. See ``toposched.sim``."""

from __future__ import annotations

import math
import os
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from toposched.cli.errors import ExitCode, error_lines
from toposched.model import Problem, SpecError, ToposchedError
from toposched.sim.arrivals import check_load
from toposched.sim.config import load_config
from toposched.sim.job_table import write_jobs
from toposched.sim.policies import sim_policies, sim_policy
from toposched.sim.report import comparison_table, verdict_lines, write_metrics, write_report
from toposched.sim.study import StudySpec, build_inputs, run_study, task_name
from toposched.sim.summary import summarise

MAX_SEEDS = 100
POLICIES = tuple(p.name for p in sim_policies())


def simulate_command(
    trace: Annotated[
        str,
        typer.Option(
            "--trace",
            help="philly, alibaba (found in --trace-dir), llm:jobs=N (a generated gang-heavy trace)"
            " or a CSV of our trace format.",
        ),
    ],
    cluster: Annotated[
        str,
        typer.Option(
            "--cluster",
            help="nvl72:racks=N, dgx:racks=N[,nodes_per_rack=M] or a cluster dump (kubectl get nodes -o yaml).",
        ),
    ],
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            help="Folder for metrics.json, report.md, jobs.csv and the plots (default: a new temporary"
            " folder, printed).",
        ),
    ] = None,
    policy: Annotated[
        str, typer.Option("--policy", help=f"Comma-separated policies to compare: {', '.join(POLICIES)}.")
    ] = ",".join(POLICIES),
    config: Annotated[
        str | None, typer.Option("--config", help="Simulation settings (YAML; see toposched.sim.config).")
    ] = None,
    trace_dir: Annotated[
        Path | None, typer.Option("--trace-dir", help="Folder of the named traces (overrides the config).")
    ] = None,
    limit_jobs: Annotated[
        int | None, typer.Option("--limit-jobs", min=1, help="Replay only the first N jobs.")
    ] = None,
    until: Annotated[
        float | None, typer.Option("--until", min=0, help="Stop at this many seconds of trace time.")
    ] = None,
    workers: Annotated[
        int | None,
        typer.Option("--workers", min=1, help="Processes (default: one per replay, up to the CPUs)."),
    ] = None,
    seeds: Annotated[
        int,
        typer.Option(
            "--seeds",
            min=1,
            max=MAX_SEEDS,
            help="Replications (seeds --seed, --seed+1, ...): each metric as mean and 95% interval.",
        ),
    ] = 1,
    seed: Annotated[int, typer.Option("--seed", min=0, help="The first replication's seed.")] = 0,
    load: Annotated[
        float, typer.Option("--load", help="Arrival rate factor: inter-arrival times divided by it.")
    ] = 1.0,
    window: Annotated[
        float | None,
        typer.Option(
            "--window",
            help="Replay a window of this many trace seconds per replication (its start drawn from"
            " the seed), starting from the jobs running then.",
        ),
    ] = None,
) -> None:
    """Replay a GPU job trace through the scheduler and compare placement policies."""
    console = Console(highlight=False, stderr=True)
    try:
        policies = _policies(policy)
        _check_finite("--until", until)
        _check_finite("--window", window)
        check_load(load)
        settings = load_config(config)
        if trace_dir is not None:
            settings = settings.model_copy(
                update={"traces": settings.traces.model_copy(update={"directory": trace_dir})}
            )
        spec = StudySpec(trace, cluster, settings, limit_jobs, until, load, window, seeds, seed)
        # Bad input fails here, before any process starts.
        jobs = {r: len(build_inputs(spec, r).jobs) for r in range(seeds)}
        inputs = build_inputs(spec)
        out = _output_folder(out)
        totals = {task_name(p, spec.replication_seed(r)): jobs[r] for r in range(seeds) for p in policies}
        with replay_progress(console, totals) as on_progress:
            results = run_study(
                spec,
                policies,
                workers=workers or min(len(totals), os.cpu_count() or 1),
                on_progress=on_progress,
            )
    except ToposchedError as exc:
        for line in error_lines(exc):
            typer.echo(line, err=True)
        raise typer.Exit(ExitCode.INVALID) from None
    from toposched.sim.plots import write_plots  # matplotlib: imported by this command only

    plots = write_plots(out, results)
    summaries = summarise(results)
    write_report(out / "report.md", spec, inputs, results, summaries, plots)
    write_metrics(out / "metrics.json", spec, inputs, summaries)
    rows = write_jobs(out / "jobs.csv", results)
    typer.echo(comparison_table(summaries))
    typer.echo("\n".join(["", *verdict_lines(summaries)]))
    typer.echo(
        f"\nwrote {out / 'metrics.json'}, {out / 'report.md'}, {out / 'jobs.csv'} ({rows} rows) and {len(plots)} plots"
    )
    if any(m.lost_jobs or m.overcommits for s in summaries for m in s.runs):
        typer.echo("a replay lost a job or over-committed a node: see the report's checks", err=True)
        raise typer.Exit(ExitCode.FAILED)


def _output_folder(out: Path | None) -> Path:
    """``--out``, made if missing; without it a new temporary folder, so a replay never writes
    into the working directory (a checkout) unasked."""
    if out is None:
        return Path(tempfile.mkdtemp(prefix="toposched-simulate-"))
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise SpecError(
            [Problem("--out", f"cannot create {out}: {exc.strerror}", "choose a writable folder")]
        ) from None
    return out


PROGRESS_LINES = 10  # off a terminal: about this many lines per policy


@contextmanager
def replay_progress(console: Console, totals: dict[str, int]) -> Iterator[Callable[[str, int], None]]:
    """A bar per replay (``totals``: its name and jobs) on a terminal; elsewhere (a log, CI) a
    line to standard error every tenth of its jobs, since a bar redrawn in place shows nothing
    there until the end."""
    if console.is_terminal:
        columns = (
            TextColumn("{task.description:>14}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
        )
        with Progress(*columns, console=console, transient=False) as bar:
            tasks = {name: bar.add_task(name, total=jobs) for name, jobs in totals.items()}
            yield lambda name, done: bar.update(tasks[name], completed=done)
        return
    reported = dict.fromkeys(totals, 0)

    def report(name: str, done: int) -> None:
        jobs = totals[name]
        step = max(1, math.ceil(jobs / PROGRESS_LINES))
        if done // step > reported[name] // step or (done == jobs and reported[name] < jobs):
            reported[name] = done
            console.print(f"{name}: {done}/{jobs} jobs replayed")

    yield report


def _check_finite(option: str, value: float | None) -> None:
    """nan and inf parse as floats, but no replay can stop there (and JSON cannot hold them)."""
    if value is not None and not math.isfinite(value):
        raise SpecError(
            [
                Problem(
                    option,
                    f"{value} is not a finite number of seconds",
                    f"give a number, or leave {option} out",
                )
            ]
        )


def _policies(text: str) -> list[str]:
    chosen: list[str] = []
    for name in filter(None, (part.strip() for part in text.split(","))):
        policy = sim_policy(name).name
        if policy not in chosen:
            chosen.append(policy)
    if not chosen:
        raise SpecError([Problem("--policy", "no policy given", f"use some of {', '.join(POLICIES)}")])
    return chosen
