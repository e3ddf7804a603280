"""``bench/vs_kube_scheduler_throughput.py`` keeps running: its quick mode streams a few gangs
through kube-scheduler and through toposched's controller, each on a control plane of its own,
places them with toposched's engine alone, and prints a line for each and the ratio line (times
are not asserted)."""

from __future__ import annotations

import pytest
from tests.bench.scripts import run_bench
from tests.realkube.fixture import binaries_for_tests


@pytest.mark.real_apiserver
@pytest.mark.slow
@pytest.mark.timeout(900)  # three control planes one after another: about a minute, more on a loaded machine
def test_the_throughput_bench_runs_in_quick_mode() -> None:
    binaries_for_tests()
    run = run_bench("vs_kube_scheduler_throughput.py", "--quick", timeout=600)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert lines[0].startswith("200 nodes")
    for name in ("kube-scheduler ", "toposched ", "toposched engine "):
        placed = next(line for line in lines if line.startswith(name))
        assert " 20 gangs in " in placed and "not placed" not in placed, placed
    assert lines[-1].startswith("toposched / kube-scheduler:")
