"""bench/service_load.py runs in quick mode against a real server and prints its figures."""

from __future__ import annotations

import pytest
from tests.bench.scripts import run_bench

pytestmark = pytest.mark.slow


@pytest.mark.parametrize(("think", "rate"), [((), "throughput"), (("--think", "20"), "offered rate")])
def test_quick_mode_prints_latencies_and_no_errors(think: tuple[str, ...], rate: str) -> None:
    done = run_bench("service_load.py", "--quick", *think, timeout=240)
    assert done.returncode == 0, done.stderr
    assert "median of 1: p50" in done.stdout
    assert f"{rate} " in done.stdout
    assert "server errors: 0; over-commit: 0" in done.stdout


def test_a_negative_think_time_is_refused() -> None:
    done = run_bench("service_load.py", "--think", "-5", timeout=60)
    assert done.returncode == 2 and "not a pause" in done.stderr
