"""bench/controller_memory.py runs in its quick mode and prints a row per mark and the growth per
gang (the figures themselves are checked by tests/controller/test_memory_soak.py)."""

from __future__ import annotations

from tests.bench.scripts import run_bench


def test_controller_memory_bench_quick_mode_prints_its_marks() -> None:
    done = run_bench("controller_memory.py", "--quick", "--tracemalloc", timeout=300)
    assert done.returncode == 0, done.stderr
    header, *rows, summary = done.stdout.splitlines()
    assert header.split() == ["gangs", "RSS", "MB", "heap", "kB", "seconds"]
    assert [row.split()[0] for row in rows] == ["200", "400"]
    assert summary.startswith("after the warm-up (200 gangs):") and "per finished gang" in summary
