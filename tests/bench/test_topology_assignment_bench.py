"""bench/topology_assignment.py runs in quick mode and prints a row per scheme and order."""

from __future__ import annotations

from tests.bench.scripts import run_bench


def test_quick_mode_prints_every_scheme_and_order() -> None:
    done = run_bench("topology_assignment.py", "--quick", "--runs", "1", timeout=240)
    assert done.returncode == 0, done.stderr
    rows = [line.split() for line in done.stdout.splitlines()[2:]]
    assert [(row[0], row[1]) for row in rows] == [
        (scheme, order) for scheme in ("gke", "ec2", "rack") for order in ("aligned", "scattered")
    ]
