"""``toposched simulate``: replay a job trace through the scheduler under several policies and
write ``metrics.json``, ``report.md`` and PNG plots to ``--out``. See ``toposched.sim``."""

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
from toposched.cli.inputs import POLICIES, parse_policy
from toposched.model import Problem, SpecError, ToposchedError
from toposched.sim.config import load_config
from toposched.sim.report import comparison_table, write_metrics, write_report
from toposched.sim.study import StudySpec, build_inputs, run_study


def simulate_command(
    trace: Annotated[
        str,
        typer.Option("--trace", help="philly, alibaba (found in --trace-dir) or a CSV of our trace format."),
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
            help="Folder for metrics.json, report.md and the plots (default: a new temporary folder, printed).",
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
        typer.Option("--workers", min=1, help="Processes (default: one per policy, up to the CPUs)."),
    ] = None,
) -> None:
    """Replay a GPU job trace through the scheduler and compare placement policies."""
    console = Console(highlight=False, stderr=True)
    try:
        policies = _policies(policy)
        _check_finite("--until", until)
        settings = load_config(config)
        if trace_dir is not None:
            settings = settings.model_copy(
                update={"traces": settings.traces.model_copy(update={"directory": trace_dir})}
            )
        spec = StudySpec(trace, cluster, settings, limit_jobs, until)
        inputs = build_inputs(spec)  # bad input fails here, before any process starts
        out = _output_folder(out)
        with replay_progress(console, [str(p) for p in policies], len(inputs.jobs)) as on_progress:
            results = run_study(
                spec,
                policies,
                workers=workers or min(len(policies), os.cpu_count() or 1),
                on_progress=on_progress,
            )
    except ToposchedError as exc:
        for line in error_lines(exc):
            typer.echo(line, err=True)
        raise typer.Exit(ExitCode.INVALID) from None
    from toposched.sim.plots import write_plots  # matplotlib: imported by this command only

    plots = write_plots(out, results)
    metrics = write_report(out / "report.md", spec, inputs, results, plots)
    write_metrics(out / "metrics.json", spec, inputs, metrics)
    typer.echo(comparison_table(metrics))
    typer.echo(f"\nwrote {out / 'metrics.json'}, {out / 'report.md'} and {len(plots)} plots")
    if any(m.lost_jobs or m.overcommits for m in metrics):
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
def replay_progress(console: Console, policies: list[str], jobs: int) -> Iterator[Callable[[str, int], None]]:
    """A bar per policy on a terminal; elsewhere (a log, CI) a line to standard error every
    tenth of the jobs, since a bar redrawn in place shows nothing there until the end."""
    if console.is_terminal:
        columns = (
            TextColumn("{task.description:>10}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
        )
        with Progress(*columns, console=console, transient=False) as bar:
            tasks = {name: bar.add_task(name, total=jobs) for name in policies}
            yield lambda name, done: bar.update(tasks[name], completed=done)
        return
    step = max(1, math.ceil(jobs / PROGRESS_LINES))
    reported = dict.fromkeys(policies, 0)

    def report(name: str, done: int) -> None:
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
        policy = parse_policy(name)
        if policy is not None and policy not in chosen:
            chosen.append(policy)
    if not chosen:
        raise SpecError([Problem("--policy", "no policy given", f"use some of {', '.join(POLICIES)}")])
    return chosen
