"""bench/memory.py runs in its quick mode and prints its figures (times are not checked)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import toposched

ROOT = Path(__file__).resolve().parents[2]


def test_memory_bench_quick_mode_prints_a_row_per_size() -> None:
    source = str(Path(toposched.__file__).resolve().parents[1])  # the package under test
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([source, os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "memory.py"), "--quick"],
        capture_output=True,
        text=True,
        env=env,
        check=False,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    header, *rows = done.stdout.splitlines()
    assert "tree+snapshot" in header
    assert [row.split()[0] for row in rows] == ["1000"]
    assert rows[0].count("MB") == 2
