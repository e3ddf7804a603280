"""Output to a pipe or a file is never cut or wrapped, as kubectl's: each command runs as a real
process with its standard output a pipe (no terminal, no COLUMNS)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from .conftest import REPO, sample_path

LONG = "-with-a-name-long-enough-to-pass-eighty-columns-x"  # rack values stay ≤ 63 characters


def piped(*args: str | Path) -> subprocess.CompletedProcess[str]:
    env = {
        k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES", "FORCE_COLOR", "TTY_COMPATIBLE")
    }
    env["PYTHONPATH"] = os.pathsep.join([str(REPO / "src"), os.environ.get("PYTHONPATH", "")])
    return subprocess.run(
        [
            sys.executable,
            "-c",
            "from toposched.cli.main import app; app(prog_name='toposched')",
            *map(str, args),
        ],
        capture_output=True,  # standard output is a pipe
        text=True,
        env=env,
        timeout=120,
        check=False,
    )


def long_named_cluster(tmp_path: Path) -> Path:
    """The sample cluster with rack z1-b1-r2 (and so its nodes) renamed to a long name."""
    text = sample_path("cluster.yaml").read_text()
    path = tmp_path / "cluster.yaml"
    path.write_text(re.sub(r"z1-b1-r2\b", "z1-b1-r2" + LONG, text))
    return path


def test_a_placement_tree_keeps_each_node_on_one_whole_line(tmp_path: Path) -> None:
    done = piped("place", REPO / "examples/kueue/job-rack.yaml", "--cluster", long_named_cluster(tmp_path))
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stdout.splitlines() if re.search(rf"{LONG}-n\d\d", line)]
    assert len(lines) == 16, done.stdout
    assert all(re.search(rf"z1-b1-r2{LONG}-n\d\d  main\[\d+\]  GPU 4 → 0$", line) for line in lines), lines
    assert max(len(line) for line in lines) > 80


def test_defrag_names_every_workload_in_full(tmp_path: Path) -> None:
    cluster = sample_path("cluster.yaml")
    as_json = piped("defrag", "--cluster", cluster, "--level", "rack", "--count", "8", "-o", "json")
    table = piped("defrag", "--cluster", cluster, "--level", "rack", "--count", "8")
    assert table.returncode == as_json.returncode == 0, table.stderr
    moved = {move["workload"] for move in json.loads(as_json.stdout)["moves"]}
    assert moved and "…" not in table.stdout
    for workload in moved:
        assert re.search(rf"^{re.escape(workload)}\s", table.stdout, re.MULTILINE), workload


def test_topology_lint_prints_label_keys_whole() -> None:
    done = piped("topology", "lint", "--cluster", sample_path("cluster.yaml"))
    assert done.returncode == 0, done.stderr
    assert "cloud.provider.com/topology-rack" in done.stdout and "…" not in done.stdout


def test_topology_show_prints_every_level_off_a_terminal() -> None:
    done = piped("topology", "show", "--cluster", sample_path("cluster.yaml"))
    assert done.returncode == 0, done.stderr
    assert sum(1 for line in done.stdout.splitlines() if "node z" in line) == 288
