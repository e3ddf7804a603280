"""How every command prints: ``-o table|wide|json|yaml|name`` and ``--no-headers`` (one definition
for all commands), documents as JSON or YAML (the result document itself:
``toposched.emit.result``), and the console tables and trees are drawn on."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import Annotated, Any

import typer
import yaml
from rich.console import Console

from toposched.cli.errors import ExitCode

FORMATS = ("table", "wide", "json", "yaml", "name")
# Off a terminal (a pipe, a file) lines are as long as their content, never cut or wrapped, as
# kubectl prints them; rich needs a width, so it gets one no line reaches.
UNBOUNDED = 1_000_000


def _check_format(value: str) -> str:
    if value not in FORMATS:
        typer.echo(f"--output: unknown format {value!r} (use one of {', '.join(FORMATS)})", err=True)
        raise typer.Exit(ExitCode.INVALID)
    return value


OutputOption = Annotated[
    str,
    typer.Option(
        "--output",
        "-o",
        metavar="FORMAT",
        callback=_check_format,
        help=(
            "table (default); wide (the table with more columns, where a command has them); json; "
            "yaml; name (KIND/NAME of each object, one a line)."
        ),
    ),
]
NoHeadersOption = Annotated[
    bool, typer.Option("--no-headers", help="Leave out the header row of tables (for scripts).")
]


def console(*, stderr: bool = False) -> Console:
    """The console a command draws on: the terminal's width on a terminal, else unbounded."""
    made = Console(highlight=False, stderr=stderr)
    if not made.is_terminal:
        made.width = UNBOUNDED
    return made


def to_json(document: Any) -> str:
    return json.dumps(document, indent=2)


def to_yaml(document: Any) -> str:
    return yaml.safe_dump(document, sort_keys=False, default_flow_style=False).rstrip("\n")


def print_document(output: str, document: Any, names: Callable[[], Iterable[str]]) -> bool:
    """Print ``document`` as ``-o json|yaml``, or ``names()`` one a line for ``-o name``; False
    for the table formats, which the command draws itself."""
    if output == "json":
        typer.echo(to_json(document))
    elif output == "yaml":
        typer.echo(to_yaml(document))
    elif output == "name":
        for name in names():
            typer.echo(name)
    else:
        return False
    return True
