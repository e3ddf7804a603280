"""``bench/vs_kube_scheduler_throughput.py`` keeps running: its quick mode streams a few gangs
through kube-scheduler on a control plane of its own and prints its line and the ratio line
(times are not asserted)."""

from __future__ import annotations

import pytest
from tests.bench.scripts import run_bench
from tests.realkube.fixture import binaries_for_tests


@pytest.mark.real_apiserver
@pytest.mark.slow
def test_the_throughput_bench_runs_in_quick_mode() -> None:
    binaries_for_tests()
    run = run_bench("vs_kube_scheduler_throughput.py", "--quick", timeout=600)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert lines[0].startswith("200 nodes")
    placed = next(line for line in lines if line.startswith("kube-scheduler"))
    assert "gangs not placed" not in placed, placed
    assert lines[-1].startswith("toposched / kube-scheduler:")
