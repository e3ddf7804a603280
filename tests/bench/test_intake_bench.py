"""bench/intake.py keeps running: its quick mode writes both dumps, loads each in a child process
and prints a line per format (times are not asserted)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_the_intake_bench_runs_in_quick_mode() -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO / "src")}
    run = subprocess.run(
        [sys.executable, str(REPO / "bench" / "intake.py"), "--quick"],
        capture_output=True,
        text=True,
        env=env,
        timeout=240,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert lines[0].startswith("cluster intake: 200 nodes")
    for kind in ("yaml", "json", "floor"):
        line = next(line for line in lines if line.split()[0] == kind)
        assert " s " in line and "peak RSS" in line, line
