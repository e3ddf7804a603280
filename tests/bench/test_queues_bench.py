"""bench/queues.py keeps working: its quick mode prints, per store, a cycle without queues and
one with 50 queues, each with the empty cycle, the accounts-and-order cost and a quota check.
Times are not asserted (they depend on the machine)."""

from __future__ import annotations

import re

from tests.bench.scripts import run_bench


def test_quick_mode_prints_each_store_with_and_without_queues() -> None:
    done = run_bench("queues.py", "--quick")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "512 nodes" in out and "40 pending Kueue Jobs" in out
    for store in ("sqlite", "memory"):
        for setting in ("no queues", "50 queues"):
            line = next(line for line in out.splitlines() if re.search(rf"{store} +{setting}", line))
            assert re.search(r"cycle +[\d.]+ s CPU +\d+ gangs admitted", line), line
            assert "empty cycle" in line and "accounts+order" in line and "quota check" in line
