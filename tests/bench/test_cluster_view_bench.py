"""bench/cluster_view.py keeps working: its quick mode prints the rebuilt and the cached poll of
a 1,000-node view. Times are not asserted (they depend on the machine)."""

from __future__ import annotations

from tests.bench.scripts import run_bench


def test_quick_mode_prints_the_rebuilt_and_the_cached_view() -> None:
    done = run_bench("cluster_view.py", "--quick", timeout=120)
    assert done.returncode == 0, done.stderr
    row = done.stdout.splitlines()[-1].split()
    assert row[0] == "1000" and row[2] == "ms" and row[4] == "ms"
    assert float(row[1]) > 0 and float(row[3]) >= 0
