"""bench/rowwise.py keeps working: its quick mode prints numpy's time, rowwise's and their ratio
for reading, writing and adding rows. Times are not asserted (they depend on the machine)."""

from __future__ import annotations

from tests.bench.scripts import run_bench


def test_quick_mode_prints_each_operation_with_its_ratio() -> None:
    done = run_bench("rowwise.py", "--quick", timeout=120)
    assert done.returncode == 0, done.stderr
    rows = [line.split() for line in done.stdout.splitlines()[1:]]
    assert [row[0] for row in rows] == ["700"] * 3
    assert all(row[-1].endswith("x") and float(row[-1][:-1]) > 0 for row in rows)
