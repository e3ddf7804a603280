"""``bench/binpack.py`` still runs: its quick mode places every gang and prints its figures."""

from __future__ import annotations

import re

from tests.bench.scripts import run_bench


def test_quick_mode_prints_each_gang_with_its_ratios() -> None:
    done = run_bench("binpack.py", "--quick", timeout=300)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "1000 nodes" in out
    for name in ("binpack-rack-16", "binpack-block-256-4-racks", "binpack-block-2048-pref"):
        # name, pods, milliseconds, ratio to the floor, ratio to the default policy, outcome
        assert re.search(rf"{name} +\d+ +[\d.]+ms +[\d.]+x +[\d.]+x +(placed|unschedulable)", out), out
