"""``toposched token create|list|revoke``: the API tokens of ``toposched serve``, managed by an
admin through the service (``/v1/tokens``), like every other admin request."""

from __future__ import annotations

from typing import Annotated, Any
from urllib.parse import quote

import typer
from rich.markup import escape
from rich.table import Table

from toposched.cli.client import DEFAULT_SERVER, ServerOpt, TokenOpt, call
from toposched.cli.output import NoHeadersOption, OutputOption, console, print_document

token_app = typer.Typer(
    help="API tokens of toposched serve (admin): create, list, revoke.", no_args_is_help=True
)
NameArg = Annotated[str, typer.Argument(metavar="NAME", help="The token's name (letters, digits, . _ @ -).")]


@token_app.command("create")
def create_command(
    name: NameArg,
    user: Annotated[str, typer.Option("--user", help="The user the token authenticates as.")],
    role: Annotated[str, typer.Option("--role", help="user or admin.")] = "user",
    server: ServerOpt = DEFAULT_SERVER,
    token: TokenOpt = None,
    output: OutputOption = "table",
    no_headers: NoHeadersOption = False,  # no header row: taken as by every command
) -> None:
    """Make a token; its secret is printed this once (the service keeps only its SHA-256) and
    works at once."""
    record = call("POST", server, "/v1/tokens", token, json_body={"name": name, "user": user, "role": role})
    if print_document(output, record, lambda: [f"token/{record['name']}"]):
        return
    typer.echo(
        f"created token {record['name']} for user {record['user']} ({record['role']}); "
        "its secret, shown this once (only its SHA-256 is kept):"
    )
    typer.echo(record["token"])


@token_app.command("list")
def list_command(
    server: ServerOpt = DEFAULT_SERVER,
    token: TokenOpt = None,
    output: OutputOption = "table",
    no_headers: NoHeadersOption = False,
) -> None:
    """Every token the service accepts, never a secret: from the tokens file serve read
    (source file) or made with token create (source store)."""
    rows: list[dict[str, Any]] = call("GET", server, "/v1/tokens", token)
    if print_document(output, rows, lambda: [f"token/{row.get('name')}" for row in rows]):
        return
    table = Table(box=None, pad_edge=False, header_style="bold", show_header=not no_headers)
    for title in ("NAME", "USER", "ROLE", "SOURCE", "CREATED-BY"):
        table.add_column(title, no_wrap=True)
    for row in rows:
        cells = (row.get(key) for key in ("name", "user", "role", "source", "createdBy"))
        table.add_row(*(escape("" if cell is None else str(cell)) for cell in cells))
    console().print(table)


@token_app.command("revoke")
def revoke_command(
    name: NameArg,
    server: ServerOpt = DEFAULT_SERVER,
    token: TokenOpt = None,
    output: OutputOption = "table",
    no_headers: NoHeadersOption = False,  # no header row: taken as by every command
) -> None:
    """Revoke a token made with token create: the service refuses it from the next request on."""
    record = call("DELETE", server, f"/v1/tokens/{quote(name, safe='')}", token)
    if print_document(output, record, lambda: [f"token/{record['name']}"]):
        return
    typer.echo(f"revoked token {record['name']} of user {record['user']}: refused from now on")
