"""bench/intake.py keeps running: its quick mode writes both dumps, loads each in a child process
and prints a line per format (times are not asserted)."""

from __future__ import annotations

from tests.bench.scripts import run_bench


def test_the_intake_bench_runs_in_quick_mode() -> None:
    run = run_bench("intake.py", "--quick", timeout=240)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert lines[0].startswith("cluster intake: 200 nodes")
    for kind in ("yaml", "json", "floor"):
        line = next(line for line in lines if line.split()[0] == kind)
        assert " s " in line and "peak RSS" in line, line
