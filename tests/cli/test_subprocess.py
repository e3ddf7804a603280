"""The installed console script, as other tools call it."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest


def toposched() -> list[str]:
    script = shutil.which("toposched")
    if script is not None:
        return [script]
    # The console script may not be on PATH (e.g. a venv not activated): same entry point.
    return [sys.executable, "-c", "from toposched.cli.main import app; app()"]


def test_place_json_from_a_real_process(sample_cluster: Path) -> None:
    from .conftest import sample_path

    job = sample_path("jobs/4-too-big-for-a-rack.yaml")
    done = subprocess.run(
        [*toposched(), "place", str(job), "--cluster", str(sample_cluster), "-o", "json"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 3, done.stderr
    doc = json.loads(done.stdout)
    assert doc["placed"] is False and doc["explanation"]["needed"] == 20


def test_invalid_input_from_a_real_process(tmp_path: Path, sample_cluster: Path) -> None:
    done = subprocess.run(
        [
            *toposched(),
            "place",
            str(tmp_path / "absent.yaml"),
            "--cluster",
            str(sample_cluster),
            "-o",
            "json",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.strip() == f"{tmp_path / 'absent.yaml'}: file not found (check the path of the job)"


@pytest.mark.parametrize("args", [["--help"], ["place", "--help"], ["demo", "--help"]])
def test_help(args: list[str]) -> None:
    done = subprocess.run([*toposched(), *args], capture_output=True, text=True, check=False)
    assert done.returncode == 0
    assert "Usage" in done.stdout
