"""bench/simulate.py --quick runs and prints its figures (times are never asserted)."""

from __future__ import annotations

from pathlib import Path

from tests.bench.scripts import run_bench


def test_quick_replay_bench_runs(tmp_path: Path) -> None:
    rows = "".join(f"j{i},{i * 30},{600 + 7 * i},{1 + i % 3},{1 + i % 4}\n" for i in range(150))
    (tmp_path / "philly_2017w40-45.csv").write_text(
        "job_id,submit_time_s,duration_s,num_pods,gpus_per_pod\n" + rows, encoding="utf-8"
    )
    done = run_bench("simulate.py", "--quick", "--trace-dir", str(tmp_path), timeout=240)
    assert done.returncode == 0, done.stderr
    assert "first 100 jobs on nvl72:racks=4 (288 GPUs)" in done.stdout
    assert "jobs/s" in done.stdout and "whole trace (150 jobs)" in done.stdout
