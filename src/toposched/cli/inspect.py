"""``toposched pool keys POOL.yaml`` and ``toposched topology usage FILE...``: what a pool offers
workflow authors, and which PodCliqueSets use which topology (the GREP-369 monitoring view)."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.table import Table

from toposched.cli.errors import ExitCode, error_lines
from toposched.cli.inputs import read_documents, read_pool
from toposched.cli.output import NoHeadersOption, OutputOption, console, print_document
from toposched.frontends.grove.operator import TopologyRegistry, format_usage, usage
from toposched.frontends.osmo import pool_keys
from toposched.model import ToposchedError

pool_app = typer.Typer(help="OSMO pools.", no_args_is_help=True)
topology_app = typer.Typer(help="Topologies and the workloads using them.", no_args_is_help=True)


def _fail(exc: ToposchedError) -> typer.Exit:
    for line in error_lines(exc):
        typer.echo(line, err=True)
    return typer.Exit(ExitCode.INVALID)


@pool_app.command("keys")
def pool_keys_command(
    pool: Annotated[str, typer.Argument(metavar="POOL", help="OSMO pool YAML (with its backend).")],
    output: OutputOption = "table",
    no_headers: NoHeadersOption = False,
) -> None:
    """The topology keys workflows may use in this pool: key, node label, order (0 = coarsest)."""
    try:
        keys = pool_keys(read_pool(pool))
    except ToposchedError as exc:
        raise _fail(exc) from None
    if not print_document(output, {"keys": keys}, lambda: [f"key/{row['key']}" for row in keys]):
        table = Table("key", "label", "order", box=None, pad_edge=False, show_header=not no_headers)
        for row in keys:
            table.add_row(str(row["key"]), str(row["label"]), str(row["order"]))
        console().print(table)


@topology_app.command("usage")
def topology_usage_command(
    files: Annotated[
        list[str],
        typer.Argument(
            metavar="FILE...", help="YAML files holding PodCliqueSets (other objects are skipped)."
        ),
    ],
    output: OutputOption = "table",
    no_headers: NoHeadersOption = False,  # the table has no header row: accepted as everywhere
) -> None:
    """PodCliqueSets per ClusterTopology, sorted by topology then namespace/name; a PodCliqueSet
    with constraints but no topology name shows as grove-topology (default)."""
    registry = TopologyRegistry()
    try:
        for path in files:
            for doc in read_documents(path, what="workload"):
                if isinstance(doc, dict) and doc.get("kind") in ("PodCliqueSet", "ClusterTopology"):
                    registry.store(doc)
    except ToposchedError as exc:
        raise _fail(exc) from None
    rows = usage(registry)
    document = {
        "workloads": [
            {
                "topology": r.topology,
                "defaulted": r.defaulted,
                "namespace": r.namespace,
                "name": r.name,
                "scheduledPods": r.scheduled_pods,
            }
            for r in rows
        ]
    }
    if not print_document(output, document, lambda: [f"podcliqueset/{r.name}" for r in rows]):
        typer.echo(format_usage(rows))
