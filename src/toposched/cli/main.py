"""The ``toposched`` command. Thin: each command lives in its own module, imported only when that
command runs (or its help is shown), so ``toposched --version`` loads no engine and ``place``
loads no web server, plotting library or Kubernetes client."""

from __future__ import annotations

import importlib
from typing import Annotated, Any

import typer
from typer.core import TyperGroup
from typer.main import get_command_from_info, get_group
from typer.models import CommandInfo

# Command name → "module:attribute", a command function or a typer.Typer of subcommands, in the
# order ``toposched --help`` lists them.
COMMANDS = {
    "place": "toposched.cli.place:place_command",
    "explain": "toposched.cli.explain:explain_command",
    "demo": "toposched.cli.demo:demo_command",
    "compile": "toposched.cli.compile:compile_command",
    "pool": "toposched.cli.pools:pool_app",  # keys (local), put and list (service)
    "topology": "toposched.cli.topology:topology_app",
    "defrag": "toposched.cli.defrag:defrag_command",
    "serve": "toposched.cli.serve:serve_command",
    "controller": "toposched.cli.controller:controller_command",
    "submit": "toposched.cli.client:submit_command",
    "get": "toposched.cli.client:get_command",
    "list": "toposched.cli.client:list_command",
    "cancel": "toposched.cli.client:cancel_command",
    "token": "toposched.cli.tokens:token_app",
    "queue": "toposched.cli.queues:queue_app",
    "simulate": "toposched.cli.simulate:simulate_command",
}


# Contexts and commands are click's, which typer vendors from 0.26 (``typer._click``, private) and
# imports before it: either name is wrong for some supported typer, so they are typed Any here.
class LazyCommands(TyperGroup):
    """The root group: lists ``COMMANDS`` without importing them and builds a command on first use."""

    def list_commands(self, ctx: Any) -> list[str]:
        return list(COMMANDS)

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        if cmd_name not in self.commands and cmd_name in COMMANDS:
            self.commands[cmd_name] = load_command(cmd_name)
        return super().get_command(ctx, cmd_name)


def load_command(name: str) -> Any:
    """Import the module of command ``name`` and build its click command as typer would."""
    module, attribute = COMMANDS[name].split(":")
    target = getattr(importlib.import_module(module), attribute)
    command: Any
    if isinstance(target, typer.Typer):
        command = get_group(target)
    else:
        info = CommandInfo(name=name, callback=target)
        command = get_command_from_info(
            info, pretty_exceptions_short=app.pretty_exceptions_short, rich_markup_mode=app.rich_markup_mode
        )
    command.name = name
    return command


app = typer.Typer(
    name="toposched",
    cls=LazyCommands,
    help="Topology-aware gang scheduling for GPU clusters (Kueue, KAI, OSMO and Grove semantics).",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)


def _print_version(wanted: bool) -> None:
    if wanted:
        from importlib.metadata import PackageNotFoundError, version  # 25 ms: only for --version

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
