"""bench/simulate.py --quick runs and prints its figures (times are never asserted)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_quick_replay_bench_runs(tmp_path: Path) -> None:
    rows = "".join(f"j{i},{i * 30},{600 + 7 * i},{1 + i % 3},{1 + i % 4}\n" for i in range(150))
    (tmp_path / "philly_2017w40-45.csv").write_text(
        "job_id,submit_time_s,duration_s,num_pods,gpus_per_pod\n" + rows, encoding="utf-8"
    )
    done = subprocess.run(
        [sys.executable, str(REPO / "bench" / "simulate.py"), "--quick", "--trace-dir", str(tmp_path)],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "PYTHONPATH": str(REPO / "src")},
        timeout=240,
    )
    assert done.returncode == 0, done.stderr
    assert "first 100 jobs on nvl72:racks=4 (288 GPUs)" in done.stdout
    assert "jobs/s" in done.stdout and "whole trace (150 jobs)" in done.stdout
