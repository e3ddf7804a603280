"""``toposched place JOB.yaml --cluster CLUSTER.yaml``: place one job and show where it goes."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.console import Console

from toposched.cli.errors import ExitCode, error_lines
from toposched.cli.output import result_document, to_json, to_yaml
from toposched.cli.pipeline import POLICIES, parse_cluster, parse_policy, place_job, read_texts
from toposched.cli.render import print_result
from toposched.model import Policy, Problem, SpecError, ToposchedError

FORMATS = ("table", "json", "yaml")


def place_command(
    job: Annotated[
        str,
        typer.Argument(
            metavar="JOB",
            help="Kueue-annotated workload (Job, JobSet, LeaderWorkerSet, ...) as YAML; - reads stdin.",
            show_default=False,
        ),
    ],
    cluster: Annotated[
        str | None,
        typer.Option(
            "--cluster",
            "-c",
            metavar="FILE",
            help="Nodes, Pods and Topologies, as a v1 List or a multi-document YAML stream.",
        ),
    ] = None,
    topology: Annotated[
        str | None,
        typer.Option(
            "--topology",
            "-t",
            metavar="NAME|FILE",
            help="A Topology of the cluster file, or a Topology file (default: the only one).",
        ),
    ] = None,
    policy: Annotated[
        str | None,
        typer.Option(
            "--policy",
            "-p",
            metavar="POLICY",
            help=f"How domains are ordered: {', '.join(POLICIES)} (default: mixed).",
        ),
    ] = None,
    output: Annotated[
        str,
        typer.Option("--output", "-o", metavar="FORMAT", help=f"Output: {', '.join(FORMATS)}."),
    ] = "table",
) -> None:
    """Place a job on a cluster, all or nothing. Exit 0 placed, 3 does not fit, 2 invalid input."""
    try:
        problems: list[Problem] = []
        chosen_policy: Policy | None = None
        if output not in FORMATS:
            problems.append(
                Problem("--output", f"unknown format {output!r}", f"use one of {', '.join(FORMATS)}")
            )
        try:
            chosen_policy = parse_policy(policy)
        except SpecError as exc:
            problems.extend(exc.problems)
        if cluster is None:
            problems.append(
                Problem("--cluster", "is missing", "give the cluster file: --cluster CLUSTER.yaml")
            )
        texts = read_texts({"job": job, "cluster": cluster}, problems)
        if problems or cluster is None:
            raise SpecError(problems)
        loaded, warnings = parse_cluster(texts["cluster"], source=cluster)
        outcome = place_job(texts["job"], loaded, topology=topology, policy=chosen_policy, source=job)
    except ToposchedError as exc:
        for line in error_lines(exc):
            typer.echo(line, err=True)
        raise typer.Exit(ExitCode.INVALID) from None

    for line in [*warnings, *outcome.warnings]:
        typer.echo(f"warning: {line}", err=True)
    if output == "table":
        console = Console(highlight=False)
        print_result(console, outcome.cluster, outcome.topology, outcome.gang, outcome.result)
    else:
        document = result_document(outcome.result)
        typer.echo(to_json(document) if output == "json" else to_yaml(document))
    raise typer.Exit(ExitCode.PLACED if outcome.placed else ExitCode.UNSCHEDULABLE)
