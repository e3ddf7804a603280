"""``bench/binpack.py`` still runs: its quick mode places every gang and prints its figures."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_quick_mode_prints_each_gang_with_its_ratios() -> None:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "binpack.py"), "--quick"],
        capture_output=True,
        text=True,
        env=env,
        check=True,
        timeout=300,
    )
    out = done.stdout
    assert "1000 nodes" in out
    for name in ("binpack-rack-16", "binpack-block-256-4-racks", "binpack-block-2048-pref"):
        # name, pods, milliseconds, ratio to the floor, ratio to the default policy, outcome
        assert re.search(rf"{name} +\d+ +[\d.]+ms +[\d.]+x +[\d.]+x +(placed|unschedulable)", out), out
