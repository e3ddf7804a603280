"""``toposched compile kai|osmo|grove FILE``: print the objects a front end would create, as YAML.

* ``kai``: the PodGroup(s) the PodGrouper builds and the labels/annotations it writes per pod;
* ``osmo``: the PodGroup per workflow group, the pod metadata and the pool's Topology;
* ``grove``: the PodGangs of a PodCliqueSet and their KAI PodGroups.

Nothing is placed; exit 0 on success, 2 for invalid input.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Annotated, Any

import typer
import yaml

from toposched.cli.errors import ExitCode, error_lines
from toposched.cli.inputs import pool_option, read_cluster, read_documents
from toposched.cli.workloads import REGISTRY
from toposched.frontends.cluster import topologies_from_documents
from toposched.frontends.registry import CompileContext
from toposched.model import Problem, SpecError, Topology, ToposchedError

compile_app = typer.Typer(
    help="Print the Kubernetes objects a front end would create (YAML), without placing anything.",
    no_args_is_help=True,
)

ClusterOption = Annotated[
    str | None,
    typer.Option(
        "--cluster", "-c", metavar="FILE", help="Cluster file whose Topologies resolve level aliases."
    ),
]


def _run(frontend: str, path: str, what: str, context: Callable[[], CompileContext]) -> None:
    """Compile the file with ``frontend`` and print the objects as a YAML stream; errors are exit 2."""
    try:
        compiled = REGISTRY.compile(read_documents(path, what=what), context(), hint=frontend)
    except ToposchedError as exc:
        for line in error_lines(exc):
            typer.echo(line, err=True)
        raise typer.Exit(ExitCode.INVALID) from None
    for warning in compiled.warnings:
        typer.echo(f"warning: {warning}", err=True)
    documents: Sequence[Mapping[str, Any]] = compiled.objects
    typer.echo(yaml.safe_dump_all([dict(d) for d in documents], sort_keys=False).rstrip("\n"))


def _topologies(cluster: str | None, topology: str | None = None) -> tuple[Topology, ...]:
    """The topologies of the cluster file and of a topology file."""
    found: list[Topology] = []
    if cluster is not None:
        found += read_cluster(cluster)[0].topologies
    if topology is not None:
        found += topologies_from_documents(read_documents(topology, what="topology"), source=topology)
    return tuple(found)


@compile_app.command("kai")
def compile_kai(
    workload: Annotated[str, typer.Argument(metavar="WORKLOAD", help="KAI-annotated workload YAML.")],
    cluster: ClusterOption = None,
) -> None:
    """The PodGroup(s) and pod metadata the KAI PodGrouper would create for WORKLOAD."""
    _run("kai", workload, "workload", lambda: CompileContext(topologies=_topologies(cluster)))


@compile_app.command("osmo")
def compile_osmo_command(
    workflow: Annotated[str, typer.Argument(metavar="WORKFLOW", help="OSMO workflow YAML.")],
    pool: Annotated[
        str | None, typer.Option("--pool", metavar="FILE", help="The pool (with its backend).")
    ] = None,
    priority: Annotated[str, typer.Option("--priority", help="HIGH, NORMAL or LOW.")] = "NORMAL",
) -> None:
    """The PodGroup per group, the pod metadata per task and the pool's KAI Topology."""

    def context() -> CompileContext:
        if pool is None:
            raise SpecError([Problem("--pool", "is missing", "give the pool: --pool POOL.yaml")])
        return CompileContext(pools=pool_option(pool), priority=priority)

    _run("osmo", workflow, "workflow", context)


@compile_app.command("grove")
def compile_grove(
    pcs: Annotated[str, typer.Argument(metavar="PCS", help="Grove PodCliqueSet YAML.")],
    topology: Annotated[
        str | None,
        typer.Option(
            "--topology", "-t", metavar="FILE", help="ClusterTopology objects the PodCliqueSet may use."
        ),
    ] = None,
    cluster: ClusterOption = None,
) -> None:
    """The PodGangs of a PodCliqueSet and their KAI PodGroups, after admission."""
    _run("grove", pcs, "PodCliqueSet", lambda: CompileContext(topologies=_topologies(cluster, topology)))
