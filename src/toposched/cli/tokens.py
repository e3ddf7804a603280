"""``toposched token create|list|revoke``: the API tokens of ``toposched serve``, managed by an
admin through the service (``/v1/tokens``), like every other admin request."""

from __future__ import annotations

import json
from typing import Annotated, Any
from urllib.parse import quote

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from toposched.cli.client import DEFAULT_SERVER, ServerOpt, TokenOpt, call
from toposched.cli.errors import ExitCode
from toposched.cli.output import to_json

token_app = typer.Typer(
    help="API tokens of toposched serve (admin): create, list, revoke.", no_args_is_help=True
)
FORMATS = ("table", "json")
OutputOpt = Annotated[str, typer.Option("--output", "-o", metavar="FORMAT", help="table or json.")]
NameArg = Annotated[str, typer.Argument(metavar="NAME", help="The token's name (letters, digits, . _ @ -).")]


@token_app.command("create")
def create_command(
    name: NameArg,
    user: Annotated[str, typer.Option("--user", help="The user the token authenticates as.")],
    role: Annotated[str, typer.Option("--role", help="user or admin.")] = "user",
    server: ServerOpt = DEFAULT_SERVER,
    token: TokenOpt = None,
    output: OutputOpt = "table",
) -> None:
    """Make a token; its secret is printed this once (the service keeps only its SHA-256) and
    works at once."""
    _check_format(output)
    record = call("POST", server, "/v1/tokens", token, json_body={"name": name, "user": user, "role": role})
    if output == "json":
        typer.echo(to_json(record))
        return
    typer.echo(
        f"created token {record['name']} for user {record['user']} ({record['role']}); "
        "its secret, shown this once (only its SHA-256 is kept):"
    )
    typer.echo(record["token"])


@token_app.command("list")
def list_command(
    server: ServerOpt = DEFAULT_SERVER, token: TokenOpt = None, output: OutputOpt = "table"
) -> None:
    """Every token the service accepts, never a secret: from the tokens file serve read
    (source file) or made with token create (source store)."""
    _check_format(output)
    rows: list[dict[str, Any]] = call("GET", server, "/v1/tokens", token)
    if output == "json":
        typer.echo(json.dumps(rows, indent=2))
        return
    table = Table(box=None, pad_edge=False, header_style="bold")
    for title in ("NAME", "USER", "ROLE", "SOURCE", "CREATED-BY"):
        table.add_column(title, no_wrap=True)
    for row in rows:
        cells = (row.get(key) for key in ("name", "user", "role", "source", "createdBy"))
        table.add_row(*(escape("" if cell is None else str(cell)) for cell in cells))
    Console(highlight=False, width=10_000).print(table)


@token_app.command("revoke")
def revoke_command(
    name: NameArg, server: ServerOpt = DEFAULT_SERVER, token: TokenOpt = None, output: OutputOpt = "table"
) -> None:
    """Revoke a token made with token create: the service refuses it from the next request on."""
    _check_format(output)
    record = call("DELETE", server, f"/v1/tokens/{quote(name, safe='')}", token)
    if output == "json":
        typer.echo(to_json(record))
        return
    typer.echo(f"revoked token {record['name']} of user {record['user']}: refused from now on")


def _check_format(output: str) -> None:
    if output not in FORMATS:
        typer.echo(f"--output: unknown format {output!r} (use one of {', '.join(FORMATS)})", err=True)
        raise typer.Exit(ExitCode.INVALID)
