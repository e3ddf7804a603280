"""``bench/explain.py`` still runs: its quick mode prints the CLI and service figures. Times
are not asserted (they depend on the machine)."""

from __future__ import annotations

import re

from tests.bench.scripts import run_bench


def test_quick_mode_prints_the_cli_and_service_figures() -> None:
    done = run_bench("explain.py", "--quick", timeout=300)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "1152 nodes (2 zones x 4 blocks x 8 racks x 18)" in out
    assert re.search(r"explain, probe reused \(now\) +[\d.]+ s +total +[\d.]+ s +x +[\d.]+ floor", out), out
    assert re.search(r"toposched explain, whole command +[\d.]+ s +exit 3", out), out
    assert re.search(r"first GET .* [\d.]+ s +status 200", out), out
    assert re.search(r"second GET, unchanged store \(kept\) +[\d.]+ s +status 200", out), out
