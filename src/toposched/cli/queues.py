"""``toposched queue put|list|show``: the scheduling queues of ``toposched serve``, through the
service (``/v1/queues``): admins put them, anyone lists and shows them with their usage."""

from __future__ import annotations

from typing import Annotated, Any
from urllib.parse import quote

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from toposched.cli.client import DEFAULT_SERVER, ServerOpt, TokenOpt, call
from toposched.cli.errors import ExitCode, error_lines
from toposched.cli.inputs import read_documents
from toposched.cli.output import to_json, to_yaml
from toposched.model import Problem, SchedulingQueue, SpecError, ToposchedError

queue_app = typer.Typer(
    help="Scheduling queues of toposched serve: put (admin), list, show.", no_args_is_help=True
)
FORMATS = ("table", "json", "yaml")
MAX_QUEUES_PER_FILE = 1_000
OutputOpt = Annotated[str, typer.Option("--output", "-o", metavar="FORMAT", help="table, json or yaml.")]
COLUMNS = (
    "NAME",
    "PARENT",
    "WEIGHT",
    "GUARANTEED",
    "LIMIT",
    "USAGE",
    "BORROWED",
    "SHARE",
    "PENDING",
    "ADMITTED",
)


@queue_app.command("put")
def put_command(
    path: Annotated[
        str, typer.Argument(metavar="FILE", help="YAML or JSON: one queue per document, or a list of them.")
    ],
    server: ServerOpt = DEFAULT_SERVER,
    token: TokenOpt = None,
    output: OutputOpt = "table",
) -> None:
    """Create or replace the queues of FILE, in order (parents before their children). Each is
    checked here first, then by the service; the first refused stops the rest."""
    _check_format(output)
    try:
        specs = _specs(read_documents(path, what="queue"))
        for i, spec in enumerate(specs):
            SchedulingQueue.parse(spec, f"queue[{i}]" if len(specs) > 1 else "queue")
    except ToposchedError as exc:
        for line in error_lines(exc):
            typer.echo(line, err=True)
        raise typer.Exit(ExitCode.INVALID) from None
    rows = [call("PUT", server, "/v1/queues", token, json_body=spec) for spec in specs]
    _print(rows, output)


@queue_app.command("list")
def list_command(
    server: ServerOpt = DEFAULT_SERVER, token: TokenOpt = None, output: OutputOpt = "table"
) -> None:
    """Every queue with what it uses now, what it is guaranteed and borrows, its fair share and
    its pending and admitted gangs."""
    _check_format(output)
    _print(call("GET", server, "/v1/queues", token), output)


@queue_app.command("show")
def show_command(
    name: Annotated[str, typer.Argument(metavar="NAME", help="The queue's name.")],
    server: ServerOpt = DEFAULT_SERVER,
    token: TokenOpt = None,
    output: OutputOpt = "table",
) -> None:
    """One queue with its usage."""
    _check_format(output)
    row = call("GET", server, f"/v1/queues/{quote(name, safe='')}", token)
    if output == "table":
        for key, value in row.items():
            typer.echo(f"{key}: {_cell(value)}")
        return
    _print([row], output, single=True)


def _specs(documents: list[Any]) -> list[Any]:
    specs = [item for doc in documents for item in (doc if isinstance(doc, list) else [doc])]
    if not specs or len(specs) > MAX_QUEUES_PER_FILE:
        raise SpecError(
            [Problem("FILE", f"holds {len(specs)} queues", f"put 1 to {MAX_QUEUES_PER_FILE} queues per file")]
        )
    return specs


def _print(rows: list[dict[str, Any]], output: str, *, single: bool = False) -> None:
    if output == "json":
        typer.echo(to_json(rows[0]) if single else to_json({"queues": rows}))
    elif output == "yaml":
        typer.echo(to_yaml(rows[0]) if single else to_yaml({"queues": rows}))
    else:
        table = Table(box=None, pad_edge=False, header_style="bold")
        for title in COLUMNS:
            table.add_column(title, no_wrap=True)
        for row in rows:
            cells = (row.get(key.lower()) for key in COLUMNS)
            table.add_row(*(escape(_cell(cell)) for cell in cells))
        Console(highlight=False, width=10_000).print(table)


def _cell(value: object) -> str:
    if value is None:
        return "-"
    if isinstance(value, dict):
        return " ".join(f"{k}={v}" for k, v in value.items()) or "-"
    if isinstance(value, list):
        return ",".join(str(v) for v in value) or "-"
    return str(value)


def _check_format(output: str) -> None:
    if output not in FORMATS:
        typer.echo(f"--output: unknown format {output!r} (use one of {', '.join(FORMATS)})", err=True)
        raise typer.Exit(ExitCode.INVALID)
