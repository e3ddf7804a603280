"""``bench/cli_startup.py`` still runs: its quick mode prints the CPU time of each command."""

from __future__ import annotations

import re

from tests.bench.scripts import run_bench


def test_quick_mode_prints_each_command_against_the_budget() -> None:
    done = run_bench("cli_startup.py", "--quick", timeout=300)
    assert done.returncode == 0, done.stderr
    for name in ("floor (python -c pass)", "toposched --version", "toposched place (288 nodes)"):
        assert re.search(rf"^{re.escape(name)}\s+\d+\.\d{{3}} s", done.stdout, re.MULTILINE), done.stdout
    assert done.stdout.count("of budget") == 2
