"""``toposched simulate``: a small trace replayed under two policies in two processes, writing
the metrics, the report and the plots; bad options exit 2 naming the option."""

from __future__ import annotations

import io
import json
import tempfile
from pathlib import Path

import pytest
from rich.console import Console

from toposched.cli.simulate import replay_progress

from .conftest import Invoke

TRACE = """job_id,submit_time_s,duration_s,num_pods,gpus_per_pod
a,0,100,2,8
b,0,50,2,8
c,10,40,1,8
d,20,10,4,8
e,120,10,1,8
"""
CLUSTER = "dgx:racks=2,nodes_per_rack=2,racks_per_spine=2"


def test_simulate_writes_metrics_report_and_plots(invoke: Invoke, tmp_path: Path) -> None:
    trace = tmp_path / "trace.csv"
    trace.write_text(TRACE, encoding="utf-8")
    out = tmp_path / "out"
    run = invoke(
        "simulate", "--trace", trace, "--cluster", CLUSTER, "--policy", "bestfit,binpack", "--out", out
    )
    assert run.exit_code == 0, run.stderr
    assert "| bestfit |" in run.stdout and "| binpack |" in run.stdout
    metrics = json.loads((out / "metrics.json").read_text(encoding="utf-8"))
    assert [p["policy"] for p in metrics["policies"]] == ["bestfit", "binpack"]
    runs = [run for p in metrics["policies"] for run in p["runs"]]
    assert len(runs) == 2 and all(
        r["jobs"] == 5 and r["lost_jobs"] == 0 and r["overcommits"] == 0 for r in runs
    )
    jobs = (out / "jobs.csv").read_text(encoding="utf-8").splitlines()
    assert jobs[0] == "policy,seed,job,arrival_s,start_s,end_s,wait_s,gpus,queue,carried"
    assert len(jobs) == 1 + 2 * 5 and "bestfit,0,2,10,50,90,40,8,,0" in jobs
    assert metrics["gpus"] == 32
    report = (out / "report.md").read_text(encoding="utf-8")
    assert "bestfit (seed 0): no job lost, no node over-committed" in report
    for name in ("utilisation.png", "wait_cdf.png", "fragmentation.png"):
        assert (out / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert f"]({name})" in report


def test_simulate_names_a_bad_option(invoke: Invoke, tmp_path: Path) -> None:
    run = invoke(
        "simulate", "--trace", "philly", "--cluster", CLUSTER, "--policy", "fastest", "--out", tmp_path
    )
    assert run.exit_code == 2
    assert "--policy: unknown policy 'fastest'" in run.stderr
    run = invoke("simulate", "--trace", "philly", "--cluster", CLUSTER, "--out", tmp_path)
    assert run.exit_code == 2
    assert run.stderr.startswith("traces.directory:")
    assert not (tmp_path / "metrics.json").exists()


def test_simulate_refuses_numbers_json_cannot_hold(invoke: Invoke, tmp_path: Path) -> None:
    """An infinite backoff or --until ended up as Infinity in metrics.json, which no JSON reader
    accepts; now both are refused, naming the field."""
    trace = tmp_path / "trace.csv"
    trace.write_text(TRACE, encoding="utf-8")
    config = tmp_path / "sim.yaml"
    config.write_text("scheduler:\n  backoff_seconds: .inf\n", encoding="utf-8")
    out = tmp_path / "out"
    common = ("simulate", "--trace", trace, "--cluster", CLUSTER, "--policy", "bestfit", "--out", out)
    run = invoke(*common, "--config", config)
    assert run.exit_code == 2
    assert run.stderr.startswith("scheduler.backoff_seconds: ")
    for until in ("inf", "nan"):
        run = invoke(*common, "--until", until)
        assert run.exit_code == 2
        assert run.stderr.startswith(f"--until: {until} is not a finite number")
    assert not (out / "metrics.json").exists()
    run = invoke(*common, "--until", "60")
    assert run.exit_code == 0, run.stderr
    json.loads((out / "metrics.json").read_text(encoding="utf-8"), parse_constant=_refuse)


def _refuse(constant: str) -> object:
    raise AssertionError(f"{constant} in metrics.json")


def test_simulate_help(invoke: Invoke) -> None:
    run = invoke("simulate", "--help")
    assert run.exit_code == 0
    assert "--limit-jobs" in run.stdout and "--until" in run.stdout


def test_without_out_it_writes_to_a_new_temporary_folder_and_reports_progress_by_lines(
    invoke: Invoke, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    trace = tmp_path / "trace.csv"
    trace.write_text(TRACE, encoding="utf-8")
    work = tmp_path / "checkout"
    work.mkdir()
    monkeypatch.chdir(work)
    monkeypatch.setenv("TMPDIR", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    tempfile.tempdir = None  # read TMPDIR again
    try:
        run = invoke("simulate", "--trace", trace, "--cluster", CLUSTER, "--policy", "bestfit")
    finally:
        tempfile.tempdir = None
    assert run.exit_code == 0, run.stderr
    assert list(work.iterdir()) == []  # nothing written where it ran
    (out,) = (tmp_path / "tmp").iterdir()
    assert out.name.startswith("toposched-simulate-") and (out / "metrics.json").is_file()
    assert f"wrote {out / 'metrics.json'}" in run.stdout
    # the runner's stderr is no terminal: lines, not a bar (the replay reports at its end here)
    assert [line for line in run.stderr.splitlines() if "jobs replayed" in line] == [
        "bestfit s0: 5/5 jobs replayed"
    ]


def test_off_a_terminal_progress_is_a_line_per_tenth_of_the_jobs() -> None:
    stream = io.StringIO()
    with replay_progress(Console(file=stream), {"bestfit": 1000, "binpack": 1000}) as report:
        for done in range(0, 1001, 50):
            report("bestfit", done)
        report("binpack", 1000)
    lines = stream.getvalue().splitlines()
    assert lines == [f"bestfit: {n}/1000 jobs replayed" for n in range(100, 1001, 100)] + [
        "binpack: 1000/1000 jobs replayed"
    ]


def test_simulate_compares_replications_with_intervals(invoke: Invoke, tmp_path: Path) -> None:
    out = tmp_path / "out"
    common = ("simulate", "--trace", "llm:jobs=40", "--cluster", "nvl72:racks=2,racks_per_block=2")
    run = invoke(
        *common, "--policy", "mixed,spread", "--seeds", "3", "--seed", "4", "--workers", "1", "--out", out
    )
    assert run.exit_code == 0, run.stderr
    metrics = json.loads((out / "metrics.json").read_text(encoding="utf-8"))
    assert metrics["seeds"] == [4, 5, 6]
    assert [len(p["runs"]) for p in metrics["policies"]] == [3, 3]
    assert metrics["policies"][0]["intervals"]["wait_mean"]["replications"] == 3
    report = (out / "report.md").read_text(encoding="utf-8")
    assert "## Waits by gang size" in report and "## Waits by queue" in report
    assert " ± " in report and ("no difference" in report or "best, " in report)
    again = tmp_path / "again"
    run = invoke(*common, "--policy", "mixed,spread", "--seeds", "3", "--seed", "4", "--out", again)
    assert (again / "jobs.csv").read_bytes() == (out / "jobs.csv").read_bytes()  # same seeds, same replays


def test_simulate_names_bad_replication_options(invoke: Invoke, tmp_path: Path) -> None:
    trace = tmp_path / "trace.csv"
    trace.write_text(TRACE, encoding="utf-8")
    common = (
        "simulate",
        "--trace",
        trace,
        "--cluster",
        CLUSTER,
        "--policy",
        "bestfit",
        "--out",
        tmp_path / "o",
    )
    for options, field in (
        (("--seeds", "3"), "--seeds"),
        (("--load", "0"), "--load"),
        (("--load", "nan"), "--load"),
        (("--window", "-5"), "--window"),
    ):
        run = invoke(*common, *options)
        assert run.exit_code == 2, options
        assert run.stderr.startswith(f"{field}: "), run.stderr
