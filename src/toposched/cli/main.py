"""The ``toposched`` command. Thin: each command lives in its own module."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version
from typing import Annotated

import typer

from toposched.cli.client import cancel_command, get_command, list_command, submit_command
from toposched.cli.compile import compile_command
from toposched.cli.controller import controller_command
from toposched.cli.defrag import defrag_command
from toposched.cli.demo import demo_command
from toposched.cli.explain import explain_command
from toposched.cli.inspect import pool_app, topology_app
from toposched.cli.place import place_command
from toposched.cli.queues import queue_app
from toposched.cli.serve import serve_command
from toposched.cli.simulate import simulate_command
from toposched.cli.tokens import token_app
from toposched.cli.topology import lint_command, show_command

app = typer.Typer(
    name="toposched",
    help="Topology-aware gang scheduling for GPU clusters (Kueue, KAI, OSMO and Grove semantics).",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
app.command("place")(place_command)
app.command("explain")(explain_command)
app.command("demo")(demo_command)
app.command("compile")(compile_command)
app.add_typer(pool_app, name="pool")
topology_app.command("lint")(lint_command)
topology_app.command("show")(show_command)
app.add_typer(topology_app, name="topology")
app.command("defrag")(defrag_command)
app.command("serve")(serve_command)
app.command("controller")(controller_command)
app.command("submit")(submit_command)
app.command("get")(get_command)
app.command("list")(list_command)
app.command("cancel")(cancel_command)
app.add_typer(token_app, name="token")
app.add_typer(queue_app, name="queue")
app.command("simulate")(simulate_command)


def _print_version(wanted: bool) -> None:
    if wanted:
        try:
            typer.echo(f"toposched {version('toposched')}")
        except PackageNotFoundError:  # run from a source tree that was never installed
            typer.echo("toposched (not installed: version unknown)")
        raise typer.Exit()


@app.callback()
def _root(
    show_version: Annotated[
        bool,
        typer.Option("--version", callback=_print_version, is_eager=True, help="Show the version and exit."),
    ] = False,
) -> None:
    """Options that come before any command (the app's help text is set on ``app``)."""
