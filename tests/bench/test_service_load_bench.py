"""bench/service_load.py runs in quick mode against a real server and prints its figures."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.slow


@pytest.mark.parametrize(("think", "rate"), [((), "throughput"), (("--think", "20"), "offered rate")])
def test_quick_mode_prints_latencies_and_no_errors(think: tuple[str, ...], rate: str) -> None:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "service_load.py"), "--quick", *think],
        capture_output=True,
        text=True,
        env=env,
        timeout=240,
        check=True,
    )
    assert "median of 1: p50" in done.stdout
    assert f"{rate} " in done.stdout
    assert "server errors: 0; over-commit: 0" in done.stdout


def test_a_negative_think_time_is_refused() -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "service_load.py"), "--think", "-5"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2 and "not a pause" in done.stderr
