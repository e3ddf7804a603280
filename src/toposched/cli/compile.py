"""``toposched compile kai|osmo|grove FILE``: print the objects a front end would create, as YAML.

* ``kai``: the PodGroup(s) the PodGrouper builds and the labels/annotations it writes per pod;
* ``osmo``: the PodGroup per workflow group, the pod metadata and the pool's Topology;
* ``grove``: the PodGangs of a PodCliqueSet and their KAI PodGroups.

Nothing is placed; exit 0 on success, 2 for invalid input.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

import typer
import yaml

from toposched.cli.errors import ExitCode, error_lines
from toposched.cli.pipeline import parse_cluster, read_text
from toposched.cli.workloads import grove_topologies, parse_documents
from toposched.frontends import grove, kai, osmo
from toposched.model import Problem, SpecError, ToposchedError, WorkloadSpecError

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


def _run(build: Callable[[], list[Any]]) -> None:
    """Build the documents and print them as a YAML stream; errors are exit 2."""
    try:
        documents = build()
    except ToposchedError as exc:
        for line in error_lines(exc):
            typer.echo(line, err=True)
        raise typer.Exit(ExitCode.INVALID) from None
    typer.echo(yaml.safe_dump_all(documents, sort_keys=False, default_flow_style=False).rstrip("\n"))


@compile_app.command("kai")
def compile_kai(
    workload: Annotated[str, typer.Argument(metavar="WORKLOAD", help="KAI-annotated workload YAML.")],
    cluster: ClusterOption = None,
) -> None:
    """The PodGroup(s) and pod metadata the KAI PodGrouper would create for WORKLOAD."""

    def build() -> list[Any]:
        topologies = (
            parse_cluster(read_text(cluster, what="cluster"), source=cluster)[0].topologies if cluster else ()
        )
        loaded = kai.load_kai(
            parse_documents(read_text(workload, what="workload"), source=workload), topologies
        )
        pods = [
            {
                "apiVersion": "v1",
                "kind": "Pod",
                "metadata": {
                    "name": pod.spec.name,
                    "namespace": next(g.namespace for g in loaded.pod_groups if g.name == pod.pod_group),
                    **loaded.pod_metadata()[pod.spec.name],
                },
            }
            for pod in loaded.pods
        ]
        for warning in loaded.warnings:
            typer.echo(f"warning: {warning}", err=True)
        return [*(g.to_object() for g in loaded.pod_groups), *pods]

    _run(build)


@compile_app.command("osmo")
def compile_osmo_command(
    workflow: Annotated[str, typer.Argument(metavar="WORKFLOW", help="OSMO workflow YAML.")],
    pool: Annotated[
        str | None, typer.Option("--pool", metavar="FILE", help="The pool (with its backend).")
    ] = None,
    priority: Annotated[str, typer.Option("--priority", help="HIGH, NORMAL or LOW.")] = "NORMAL",
) -> None:
    """The PodGroup per group, the pod metadata per task and the pool's KAI Topology."""

    def build() -> list[Any]:
        if pool is None:
            raise SpecError([Problem("--pool", "is missing", "give the pool: --pool POOL.yaml")])
        out = osmo.compile_osmo(read_text(workflow, what="workflow"), read_text(pool, what="pool"), priority)
        return [out]

    _run(build)


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

    def build() -> list[Any]:
        sources = [
            (read_text(f, what=what), f) for f, what in ((topology, "topology"), (cluster, "cluster")) if f
        ]
        documents = parse_documents(read_text(pcs, what="PodCliqueSet"), source=pcs)
        if not documents:
            raise WorkloadSpecError([Problem(pcs, "is empty", "give a PodCliqueSet")])
        loaded = grove.load_grove(documents, grove_topologies(*sources))
        for warning in loaded.warnings:
            typer.echo(f"warning: {warning}", err=True)
        return [*loaded.podgangs, *loaded.podgroups]

    _run(build)
