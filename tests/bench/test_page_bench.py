"""``bench/page.py`` runs in quick mode against a real server on 10,368 nodes and prints the view's
size, its build time and (with a browser) the page's render time."""

from __future__ import annotations

import re

import pytest
from tests.bench.scripts import run_bench

pytestmark = pytest.mark.slow


def test_quick_mode_prints_the_view_s_size_and_times() -> None:
    done = run_bench("page.py", "--quick", timeout=280)
    assert done.returncode == 0, done.stderr
    assert "cluster: 10,368 nodes" in done.stdout
    assert re.search(r"view build \+ encode: \d+ ms CPU", done.stdout), done.stdout
    assert re.search(r"view JSON: \d+ KiB, \d+ KiB gzip", done.stdout), done.stdout
    assert re.search(r"page render: (\d+ ms; drawn [\d.]+ s after navigation|not measured)", done.stdout)


def test_no_runs_is_refused() -> None:
    done = run_bench("page.py", "--runs", "0", timeout=60)
    assert done.returncode == 2 and "at least 1" in done.stderr
