"""Every command in README.md is run, or checked against its help, so the README cannot go stale.

Concrete ``toposched`` commands run as a user would type them (through bash, so globs expand) in a
scratch folder linking the checkout's ``examples`` and ``src``; each must exit 0 or 3 (placed, or
valid but not placeable) without a traceback, and where the README shows output it must be that
output. Synopses (with placeholders) name only commands and options the command has. The client
commands run against a real ``toposched serve``. What is not run is listed in
``tests.docs.readme.SKIPPED`` with the reason."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.docs.readme import ROOT, SERVED, Command, matches, read_readme, skipped_reason
from tests.service.server import ADMIN, USERS, Server
from tests.service.test_readme_curl import readme_curl_lines

from toposched.cli.main import COMMANDS
from toposched.cli.output import FORMATS

BOOT = "from toposched.cli.main import app; app(prog_name='toposched')"
README = read_readme()
TOPOSCHED = [c for c in README.commands if c.line.startswith("toposched ")]
LOCAL = [
    c for c in TOPOSCHED if c.runnable() and not skipped_reason(c.line) and not c.line.startswith(SERVED)
]
SYNOPSES = [c for c in TOPOSCHED if not c.runnable() or skipped_reason(c.line)]


def scratch(tmp_path: Path) -> Path:
    """A folder with the checkout's examples and sources, where commands may write."""
    tmp_path.mkdir(parents=True, exist_ok=True)
    for name in ("examples", "src"):
        (tmp_path / name).symlink_to(ROOT / name)
    return tmp_path


def shell(line: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """``line`` run by bash with ``toposched`` meaning this checkout's command line."""
    path = os.pathsep.join([str(ROOT / "src"), os.environ.get("PYTHONPATH", "")])
    environment = {**os.environ, "PYTHONPATH": path, "PY": sys.executable, "BOOT": BOOT, **(env or {})}
    for name in ("COLUMNS", "LINES", "FORCE_COLOR", "TTY_COMPATIBLE"):
        environment.pop(name, None)
    script = f'toposched() {{ "$PY" -c "$BOOT" "$@"; }}\n{line}'
    return subprocess.run(
        ["bash", "-c", script],
        cwd=cwd,
        env=environment,
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
    )


def test_every_readme_command_is_run_checked_or_skipped_with_a_reason() -> None:
    for command in README.commands:
        assert command.line.startswith("toposched ") or skipped_reason(command.line), command.line
    assert len(LOCAL) >= 12 and len(SYNOPSES) >= 20  # the parser still finds the README's commands
    curl = [c.line for c in README.commands if c.line.startswith("curl ")]
    # tests/service/test_readme_curl.py runs each one
    assert curl == [re.sub(r"\s+", " ", line) for line in readme_curl_lines()]


@pytest.mark.parametrize("command", LOCAL, ids=lambda c: c.line[10:70])
def test_a_readme_command_runs_as_shown(command: Command, tmp_path: Path) -> None:
    line = command.runnable()
    assert line is not None
    done = shell(line, scratch(tmp_path))
    assert done.returncode in (0, 3), (line, done.stderr)
    assert "Traceback" not in done.stderr, done.stderr
    if command.output is not None:
        shown = command.output
        # a transcript that shows only warnings shows standard error (the objects go to stdout)
        warnings_only = all(s.startswith("warning: ") for s in shown if s)
        actual = (done.stderr if warnings_only else done.stdout).splitlines()
        assert matches(shown, actual), "\n".join(["README shows:", *shown, "the command prints:", *actual])


@pytest.mark.parametrize("command", SYNOPSES, ids=lambda c: c.line[10:70])
def test_a_readme_synopsis_names_only_what_the_command_has(command: Command, tmp_path: Path) -> None:
    words = [w.strip("[]") for w in command.words[1:]]
    path: list[str] = []
    if words and words[0] in COMMANDS:
        path.append(words.pop(0))
        if words and re.fullmatch(r"[a-z]+", words[0]) and path[0] in ("pool", "topology", "token", "queue"):
            path.append(words.pop(0))
    elif words and words[0].isupper():
        return  # toposched COMMAND --help
    assert path or words[0].startswith("-"), command.line  # a command, or an option of toposched itself
    done = shell(f"toposched {' '.join(path)} --help", tmp_path)
    assert done.returncode == 0, done.stderr
    for word in words:
        option = word.split("=")[0]
        if option.startswith("-") and option != "-":
            assert re.search(rf"(?<![\w-]){re.escape(option)}(?![\w-])", done.stdout), (option, command.line)
    for choices in re.findall(r"-o (\S+)", command.line):
        listed = choices.strip("[]").split("|")
        assert listed == ["FORMAT"] or set(listed) <= set(FORMATS), command.line


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Server]:
    serve = next(c for c in TOPOSCHED if c.line.startswith("toposched serve"))
    cluster = re.search(r"--cluster (\S+)", serve.line)
    assert cluster is not None and (ROOT / cluster.group(1)).is_file(), serve.line
    server = Server(tmp_path, cluster=(ROOT / cluster.group(1)).read_text(encoding="utf-8"))
    server.start()
    try:
        yield server
    finally:
        server.kill()


def test_the_readme_client_commands_run_against_a_served_instance(served: Server, tmp_path: Path) -> None:
    lines = [c.runnable() for c in TOPOSCHED if c.line.startswith(SERVED[1:]) and c.shell_block]
    assert len(lines) >= 5 and all(lines), lines
    env = {"TOPOSCHED_SERVER": served.url, "USER_TOKEN": USERS["user0"], "ADMIN_TOKEN": ADMIN}
    outputs = []
    for line in lines:
        assert line is not None
        done = shell(
            line, scratch(tmp_path / "work") if not (tmp_path / "work").exists() else tmp_path / "work", env
        )
        assert done.returncode == 0, (line, done.stderr)
        outputs.append(done.stdout)
    joined = "\n".join(outputs)
    assert "submitted workload 1 (train-rack): pending" in joined
    assert re.search(r"^\s*1\s+train-rack\s", joined, re.MULTILINE)  # list's row
    assert "revoked token ci-bot" in joined
    assert re.search(r"^\s*team-a\s+org\s", joined, re.MULTILINE)  # queue list's row
    assert "stored pool my-pool (4 topology key(s))" in joined
    assert re.search(
        r"^submitted workload \d+ \(multiple-nvl72-same-zone-group1\): pending$", joined, re.MULTILINE
    )


def test_the_output_contract_has_the_keys_the_readme_shows(tmp_path: Path) -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text[text.index("### Output contract") : text.index("### Exit codes")]
    shown = [json.loads(block) for block in re.findall(r"```json\n(.*?)\n```", section, re.DOTALL)]
    assert len(shown) == 2
    cluster = "src/toposched/samples/cluster.yaml"
    for document, job in zip(
        shown,
        ["examples/kueue/job-rack.yaml", "src/toposched/samples/jobs/4-too-big-for-a-rack.yaml"],
        strict=True,
    ):
        done = shell(
            f"toposched place {job} --cluster {cluster} -o json", scratch(tmp_path / job.split("/")[-1])
        )
        printed = json.loads(done.stdout)
        assert list(printed) == list(document)
        assert (printed["placed"], printed["policy"], printed["topology"]) == (
            document["placed"],
            document["policy"],
            document["topology"],
        )
        if document["explanation"] is not None:
            assert (
                printed["explanation"] == document["explanation"] and printed["reason"] == document["reason"]
            )
