"""Every command's help reads as plain text (no reST markup shows) and says which options are
required."""

from __future__ import annotations

import re

import pytest

from toposched.cli.main import COMMANDS

from .conftest import Invoke

SUBCOMMANDS = {"pool": ["keys"], "topology": ["usage", "lint", "show"], "token": ["create", "list", "revoke"]}
PATHS = [(name, *([sub] if sub else [])) for name in COMMANDS for sub in SUBCOMMANDS.get(name, [""])]


@pytest.mark.parametrize("path", PATHS, ids=" ".join)
def test_help_shows_no_rest_markup(invoke: Invoke, path: tuple[str, ...]) -> None:
    run = invoke(*path, "--help")
    assert run.exit_code == 0
    assert not re.search(r"``|:(class|func|meth):`", run.stdout), run.stdout


@pytest.mark.parametrize(
    "path", [("place",), ("explain",), ("defrag",), ("topology", "lint"), ("topology", "show")], ids=" ".join
)
def test_the_cluster_option_says_what_is_read_without_it(invoke: Invoke, path: tuple[str, ...]) -> None:
    text = " ".join(invoke(*path, "--help").stdout.replace("│", " ").split())
    cluster = text[text.index("--cluster") :][:300]
    assert "Without it, the live cluster of the kubeconfig" in cluster, cluster
    assert "--context" in text and "--kubeconfig" in text
