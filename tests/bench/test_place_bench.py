"""bench/place.py keeps working: its quick mode runs and prints every gang against the floor.
Times are not asserted (they depend on the machine)."""

from __future__ import annotations

import runpy
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "bench" / "place.py"


def test_quick_mode_prints_every_gang_with_its_ratio_to_the_floor(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys, "argv", [str(SCRIPT), "--quick"])
    bench = runpy.run_path(str(SCRIPT), run_name="__main__")
    out = capsys.readouterr().out
    assert "2048 nodes" in out
    assert "floor (capacity + level sums)" in out
    for g, policy in bench["GANGS"]:
        line = next(line for line in out.splitlines() if f" {g.name} " in line)
        assert policy.value in line
        assert "floor  (placed)" in line
    assert "zone-2048-slices-64-16" in out
