"""``toposched defrag --cluster CLUSTER.yaml --level LEVEL [--count N]``: which running workloads
to move so that N whole domains of a level become free, and where each pod would go."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from toposched.cli.cluster_options import ClusterOption, ContextOption, KubeconfigOption
from toposched.cli.errors import ExitCode, error_lines, exit_code_of
from toposched.cli.inputs import ClusterSource, cluster_topologies
from toposched.cli.output import NoHeadersOption, OutputOption, console, print_document
from toposched.emit.result import defrag_to_json
from toposched.engine import plan_defrag
from toposched.model import DefragPlan, Problem, SpecError, Topology, ToposchedError


def defrag_command(
    level: Annotated[
        str, typer.Option("--level", "-l", help="The level to free domains of: its node label or short name.")
    ],
    count: Annotated[int, typer.Option("--count", "-n", min=1, help="How many whole domains to free.")] = 1,
    topology: Annotated[
        str | None,
        typer.Option(
            "--topology", "-t", metavar="NAME|FILE", help="The topology (default: the cluster's only one)."
        ),
    ] = None,
    cluster: ClusterOption = None,
    output: OutputOption = "table",
    no_headers: NoHeadersOption = False,
    context: ContextOption = None,
    kubeconfig: KubeconfigOption = None,
) -> None:
    """Advise the fewest workload moves that free COUNT whole domains at LEVEL, on a cluster dump
    or the kubeconfig's live cluster. Exit 0 when the plan frees them all, 3 when fewer can be
    freed (the plan says why), 2 for invalid input, 1 when the live cluster cannot be read."""
    try:
        loaded, topologies = cluster_topologies(ClusterSource(cluster, context, kubeconfig), topology)
        if len(topologies) > 1:
            names = ", ".join(t.name for t in topologies)
            raise SpecError(
                [Problem("--topology", f"the cluster has several topologies ({names})", "name one")]
            )
        chosen = topologies[0]
        key = chosen.level_named(level, path="--level")
        plan = plan_defrag(chosen, loaded.nodes, loaded.pods, chosen.levels.index(key), count)
    except ToposchedError as exc:
        for line in error_lines(exc):
            typer.echo(line, err=True)
        raise typer.Exit(exit_code_of(exc)) from None
    document = defrag_to_json(plan)
    moved = [f"pod/{pod.pod}" for move in plan.moves for pod in move.pods]
    if not print_document(output, document, lambda: moved):
        _print_plan(console(), chosen, plan, headers=not no_headers)
    if not plan.complete:
        raise typer.Exit(ExitCode.UNSCHEDULABLE)


def _print_plan(console: Console, topology: Topology, plan: DefragPlan, *, headers: bool) -> None:
    name = topology.short_name(plan.level)
    freed = ", ".join("/".join(path) for path in plan.freed) or "none"
    console.print(f"free {len(plan.freed)} of {plan.wanted} {name}(s) asked for: {freed}")
    console.print(
        f"{plan.already_free} already free; move {len(plan.moves)} workload(s), {plan.pods_moved} pod(s)"
    )
    if plan.moves:
        table = Table("workload", "pod", "from", "to", box=None, pad_edge=False, show_header=headers)
        for move in plan.moves:
            for pod in move.pods:
                table.add_row(move.workload, pod.pod, pod.source, pod.target)
        console.print(table)
    if plan.reason:
        console.print(f"[yellow]no more {name}s can be freed:[/yellow] {plan.reason}")
