"""bench/memory.py runs in its quick mode and prints its figures (times are not checked)."""

from __future__ import annotations

from tests.bench.scripts import run_bench


def test_memory_bench_quick_mode_prints_a_row_per_size() -> None:
    done = run_bench("memory.py", "--quick", timeout=120)
    assert done.returncode == 0, done.stderr
    header, *rows = done.stdout.splitlines()
    assert "tree+snapshot" in header
    assert [row.split()[0] for row in rows] == ["1000"]
    assert rows[0].count("MB") == 2
