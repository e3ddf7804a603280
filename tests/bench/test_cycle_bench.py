"""bench/cycle.py keeps working: its quick mode runs one cycle per store and prints each with
its pods per second and its ratio to the engine-only floor, then the empty cycle per store.
Times are not asserted (they depend on the machine)."""

from __future__ import annotations

import re
import runpy
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "bench" / "cycle.py"


def test_quick_mode_prints_a_cycle_per_store_against_the_floor(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys, "argv", [str(SCRIPT), "--quick"])
    runpy.run_path(str(SCRIPT), run_name="__main__")
    out = capsys.readouterr().out
    assert "512 nodes" in out
    assert "40 pending Kueue Jobs" in out
    assert "engine only (floor)" in out
    for store in ("sqlite", "memory"):
        assert re.search(rf"empty cycle, {store} +[\d.]+ ms CPU", out), out
    for store in ("sqlite", "memory"):
        line = next(line for line in out.splitlines() if f"cycle, {store}" in line)
        assert "pods admitted" in line
        assert "pods/s" in line
        assert "floor" in line
