"""bench/preemption.py keeps working: its quick mode makes one preemption decision on a full
cluster and times a cycle with a reservation, on and off. Times are not asserted."""

from __future__ import annotations

from tests.bench.scripts import run_bench


def test_quick_mode_prints_a_preemption_and_the_reservation_cycles() -> None:
    done = run_bench("preemption.py", "--quick", timeout=300)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    preemption = next(line for line in lines if line.startswith("preemption cycle"))
    assert " victims " in preemption and "victims 0," not in preemption  # the cluster was full
    assert sum(line.startswith("cycle, 1 wide gang") for line in lines) == 2
