"""bench/scale.py runs in its quick mode and prints each figure of its one size (times and
memory are not checked: they depend on the machine)."""

from __future__ import annotations

import re

from tests.bench.scripts import run_bench


def test_scale_bench_quick_mode_prints_every_figure() -> None:
    done = run_bench("scale.py", "--quick", timeout=300)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert re.search(r"1024 nodes, 102 of 102 gangs \(\d+ pods\) admitted", out), out
    for figure in (
        r"fill +[\d.]+ s CPU \([\d.]+ s wall\) in \d+ cycle\(s\)",
        r"time to admission +[\d.]+ s median +[\d.]+ s p90",
        r"empty cycle +[\d.]+ ms",
        r"one more gang +[\d.]+ ms to admission",
        r"memory +\d+ MB peak RSS \(\d+ MB after building the inputs\)",
    ):
        assert re.search(figure, out), (figure, out)
