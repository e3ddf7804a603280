"""bench/exact.py keeps working: its quick mode prints every gang shape with the faithful time,
the exact search's and their ratio. Times are not asserted (they depend on the machine)."""

from __future__ import annotations

from tests.bench.scripts import run_bench


def test_quick_mode_prints_every_gang_with_its_ratio_to_the_faithful_placement() -> None:
    done = run_bench("exact.py", "--quick", timeout=300)
    assert done.returncode == 0, done.stderr
    rows = [line for line in done.stdout.splitlines() if " ms " in line]
    assert len(rows) == 9 and all(" x" in row for row in rows)
    sliced = next(row for row in rows if "block-512-rack-slices" in row)
    assert sliced.count("none exists") == 2  # refused by both, the search in a few steps
