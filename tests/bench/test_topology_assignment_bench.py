"""bench/topology_assignment.py runs in quick mode and prints a row per scheme and order."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_quick_mode_prints_every_scheme_and_order() -> None:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "topology_assignment.py"), "--quick", "--runs", "1"],
        capture_output=True,
        text=True,
        env=env,
        timeout=240,
        check=True,
    )
    rows = [line.split() for line in done.stdout.splitlines()[2:]]
    assert [(row[0], row[1]) for row in rows] == [
        (scheme, order) for scheme in ("gke", "ec2", "rack") for order in ("aligned", "scattered")
    ]
