"""``toposched pool put|list``: OSMO pools stored in ``toposched serve`` (admin, ``/v1/pools``),
read from the same pool file ``place --pool`` takes; ``pool keys`` (local) is in ``inspect``."""

from __future__ import annotations

from typing import Annotated, Any
from urllib.parse import quote

import typer
from rich.markup import escape
from rich.table import Table

from toposched.cli.client import DEFAULT_SERVER, ServerOpt, TokenOpt, call
from toposched.cli.errors import ExitCode, error_lines
from toposched.cli.inputs import read_pool
from toposched.cli.inspect import pool_app
from toposched.cli.output import NoHeadersOption, OutputOption, console, print_document
from toposched.model import ToposchedError


@pool_app.command("put")
def put_command(
    pool: Annotated[str, typer.Argument(metavar="POOL", help="OSMO pool YAML (with its backend).")],
    topology: Annotated[
        str | None,
        typer.Option(
            "--topology",
            "-t",
            metavar="NAME",
            help="A stored topology the pool uses (default: its own, from its topology keys).",
        ),
    ] = None,
    server: ServerOpt = DEFAULT_SERVER,
    token: TokenOpt = None,
    output: OutputOption = "table",
    no_headers: NoHeadersOption = False,  # one line, no header: taken as by every command
) -> None:
    """Store a pool in the service (create or replace it), checked locally first by OSMO's rules;
    workflows then run in it with submit --pool NAME."""
    try:
        parsed = read_pool(pool)
    except ToposchedError as exc:
        for line in error_lines(exc):
            typer.echo(line, err=True)
        raise typer.Exit(ExitCode.INVALID) from None
    body: dict[str, Any] = {
        "description": parsed.description,
        "topology_keys": [{"key": k.key, "label": k.label} for k in parsed.topology_keys],
        "backend": parsed.backend.model_dump(mode="json"),
    }
    if topology is not None:
        body["topology"] = topology
    record = call("PUT", server, f"/v1/pools/{quote(parsed.name, safe='')}", token, json_body=body)
    if not print_document(output, record, lambda: [f"pool/{record['name']}"]):
        keys = len(record.get("topology_keys") or ())
        typer.echo(f"stored pool {record['name']} ({keys} topology key(s))")


@pool_app.command("list")
def list_command(
    server: ServerOpt = DEFAULT_SERVER,
    token: TokenOpt = None,
    output: OutputOption = "table",
    no_headers: NoHeadersOption = False,
) -> None:
    """The pools stored in the service (admin): name, topology, keys coarsest first, backend."""
    rows: list[dict[str, Any]] = call("GET", server, "/v1/pools", token)
    if print_document(output, rows, lambda: [f"pool/{row.get('name')}" for row in rows]):
        return
    table = Table(box=None, pad_edge=False, header_style="bold", show_header=not no_headers)
    for title in ("NAME", "TOPOLOGY", "KEYS", "BACKEND"):
        table.add_column(title, no_wrap=True)
    for row in rows:
        keys = ",".join(str(k.get("key")) for k in row.get("topology_keys") or () if isinstance(k, dict))
        backend = row.get("backend")
        backend_name = backend.get("name") if isinstance(backend, dict) else None
        cells = (row.get("name"), row.get("topology") or "(own)", keys, backend_name)
        table.add_row(*(escape("" if cell is None else str(cell)) for cell in cells))
    console().print(table)
