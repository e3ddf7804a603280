"""``toposched demo`` runs offline and shows every example."""

from __future__ import annotations

from pathlib import Path

import pytest

from toposched.cli.kep import EXAMPLES
from toposched.samples import read_sample, sample_names

from .conftest import REPO, Invoke


def test_demo_prints_every_example_and_matches_the_kep(invoke: Invoke) -> None:
    run = invoke("demo")
    assert run.exit_code == 0, run.stdout  # the demo exits 1 when any example differs from the KEP
    out = " ".join(run.stdout.split())  # rich may wrap long titles
    for example in EXAMPLES:
        assert example.title in out
    for name in sample_names("jobs"):
        title = read_sample(name).splitlines()[0].lstrip("# ")
        assert title in out
    assert "differs from the KEP" not in out
    assert out.count("✓ as in the KEP") == sum(1 for e in EXAMPLES if not hasattr(e, "rows"))
    assert "cannot place research/train-rack-20" in out


def test_demo_sections_can_be_skipped(invoke: Invoke) -> None:
    run = invoke("demo", "--no-kep")
    assert run.exit_code == 0
    assert "KEP-2724 example" not in run.stdout
    assert "Sample job 1" in run.stdout


def test_the_commands_the_demo_prints_run_as_shown(invoke: Invoke, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)  # a checkout: the paths are relative to it
    commands = [
        line[2:].split() for line in invoke("demo", "--no-kep").stdout.splitlines() if line.startswith("$ ")
    ]
    assert len(commands) == len(sample_names("jobs"))
    for command in commands:
        assert command[:2] == ["toposched", "place"] and command[3] == "--cluster"
        assert Path(command[2]).is_file() and Path(command[4]).is_file(), command
        assert invoke(*command[1:], "-o", "json").exit_code in (0, 3)


def test_outside_a_checkout_the_paths_are_absolute(
    invoke: Invoke, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.chdir(tmp_path)
    lines = [line for line in invoke("demo", "--no-kep").stdout.splitlines() if line.startswith("$ ")]
    assert lines and all(
        Path(line.split()[3]).is_absolute() and Path(line.split()[3]).is_file() for line in lines
    )
