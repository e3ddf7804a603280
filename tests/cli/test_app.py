"""The ``toposched`` command as a whole: its version, its help, and the README's samples."""

from __future__ import annotations

import glob
import re
from importlib.metadata import version
from pathlib import Path

import pytest

from .conftest import REPO, Invoke


def test_version(invoke: Invoke) -> None:
    run = invoke("--version")
    assert run.exit_code == 0
    assert run.stdout.strip() == f"toposched {version('toposched')}"


@pytest.mark.parametrize("command", [[], ["place"], ["demo"], ["serve"], ["list"]])
def test_help_shows_metavars_not_python_types(invoke: Invoke, command: list[str]) -> None:
    run = invoke(*command, "--help")
    assert run.exit_code == 0
    assert "Usage:" in run.stdout
    assert not re.search(r"<(bool|str|int|float)>", run.stdout), run.stdout
    help_line = next(line for line in run.stdout.splitlines() if "--help" in line)
    assert help_line.split("--help", 1)[1].strip(" │").startswith("Show this message"), help_line


def test_serve_help_names_only_pages_it_serves(invoke: Invoke) -> None:
    text = " ".join(invoke("serve", "--help").stdout.split())
    assert "/docs" not in text  # the Swagger page needs a CDN: not served (README, Other commands)
    assert "/openapi.json" in text


def test_place_help_names_its_argument_and_options(invoke: Invoke) -> None:
    text = invoke("place", "--help").stdout
    assert "[OPTIONS] JOB" in text
    assert re.search(r"--cluster\s+-c\s+FILE", text)


def test_readme_topology_usage_sample_is_what_the_command_prints(
    invoke: Invoke, monkeypatch: pytest.MonkeyPatch
) -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    match = re.search(
        r"```\n\$ toposched topology usage (?P<args>[^\n]+)\n(?P<out>.*?)```", readme, re.DOTALL
    )
    assert match is not None, "README has no `$ toposched topology usage` sample"
    monkeypatch.chdir(REPO)
    files = [path for pattern in match["args"].split() for path in sorted(glob.glob(pattern))]
    assert files and all(Path(f).is_file() for f in files)
    run = invoke("topology", "usage", *files)
    assert run.exit_code == 0, run.stderr
    assert run.stdout == match["out"]
