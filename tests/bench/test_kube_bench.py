"""``bench/kube.py`` still runs: its quick mode places every kube gang and prints its ratio to
the floor. Times are not asserted (they depend on the machine)."""

from __future__ import annotations

import re

from tests.bench.scripts import run_bench


def test_quick_mode_prints_every_gang_with_its_ratio_to_the_floor() -> None:
    done = run_bench("kube.py", "--quick", timeout=300)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "1000 nodes: 63 racks" in out
    expected = {
        "rack-16": "placed",
        "rack-128": "unschedulable",
        "rack-128-min-16": "placed",
        "basic-64-rack": "placed",
        "block-4x16-rack": "placed",
    }
    for name, status in expected.items():
        # name, pods, milliseconds, ratio to the floor, outcome
        assert re.search(rf" {name} +\d+ pods +[\d.]+ ms +x +[\d.]+ floor +\({status}\)", out), out
