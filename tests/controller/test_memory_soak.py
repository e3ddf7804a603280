"""The controller's memory stays flat while gangs come and go: nothing is kept per finished gang.

Measured in a fresh process (``tests/controller/soak.py``): its resident set after a warm-up of
1,000 gangs against the same after 5,000."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from tests.controller.cluster import kueue_pod
from tests.controller.soak import Soak

from toposched.controller.keys import GangKey
from toposched.controller.kubeapi import PODS

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_memory_is_flat_over_five_thousand_finished_gangs() -> None:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT)])}
    run = subprocess.run(
        [sys.executable, "-m", "tests.controller.soak", "5000", "1000"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    marks = [json.loads(line) for line in run.stdout.splitlines()]
    assert [m["gangs"] for m in marks] == [1000, 2000, 3000, 4000, 5000]
    warm, end = marks[0]["rss"], marks[-1]["rss"]
    assert end <= 1.10 * warm, f"resident set {warm} -> {end} bytes from gang 1,000 to 5,000"
    assert marks[-1]["workloads"] == 0  # every gang ended, and was forgotten


def test_nothing_is_kept_about_a_gang_once_its_pods_are_gone() -> None:
    soak = Soak(racks=2)
    api, ctl = soak.api, soak.ctl
    for name in ("bad-0", "bad-1"):  # refused: its level is not in the topology
        api.put(PODS, kueue_pod(name, "bad", level="example.com/no-such-level"))
    soak.round()
    assert set(ctl.reconciler.refused) == {GangKey("kueue", "default", "bad")}
    for name in ("bad-0", "bad-1"):
        api.remove(PODS, name, "default")
    soak.round()
    reconciler = ctl.reconciler
    assert (
        reconciler.workloads,
        reconciler.refused,
        reconciler.whole_at,
        reconciler.expectations.pending,
    ) == (
        {},
        {},
        {},
        {},
    )
    assert ctl.scheduler.list() == []
