"""Small traces and configurations for the simulator tests."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from toposched.sim.config import SimConfig, parse_config

HEADER = "job_id,submit_time_s,duration_s,num_pods,gpus_per_pod\n"

# On dgx:racks=2,nodes_per_rack=2 (two racks of two 8-GPU nodes, 32 GPUs), hand-worked in
# test_replay.py: a and b fill one rack each; c waits for b to end; d needs all four nodes
# (wider than a rack: required spine) and waits for a; e arrives when all is free.
SMALL_TRACE = [
    ("a", 0, 100, 2, 8),
    ("b", 0, 50, 2, 8),
    ("c", 10, 40, 1, 8),
    ("d", 20, 10, 4, 8),
    ("e", 120, 10, 1, 8),
]
SMALL_CLUSTER = "dgx:racks=2,nodes_per_rack=2,racks_per_spine=2"


def write_trace(path: Path, rows: Sequence[tuple[str, float, float, int, int]]) -> Path:
    path.write_text(HEADER + "".join(",".join(str(v) for v in row) + "\n" for row in rows), encoding="utf-8")
    return path


@pytest.fixture
def small_trace(tmp_path: Path) -> Path:
    return write_trace(tmp_path / "small.csv", SMALL_TRACE)


@pytest.fixture
def config() -> SimConfig:
    return parse_config(None)
