"""``toposched compile INPUT [--to TARGET]``: print Kubernetes objects for a workload, as YAML,
without placing anything.

* without ``--to``: what the input's own controller would create (the KAI PodGrouper's PodGroup
  and pod metadata; OSMO's PodGroup per group, pod metadata and pool Topology; Grove's PodGangs
  and their KAI PodGroups);
* with ``--to TARGET``: the same gang written for another scheduler (``toposched.emit.targets``),
  each constraint the target cannot express as a ``warning:`` line on standard error.

Objects of the input itself (the kube front end's Workloads, PodGroups and Pods) come first, as
written; what the dry run creates besides them (a Job's Workload, PodGroup and Pods) follows a
``# created ...`` comment. ``--to kube`` of a kube input without ``--api-version`` is that too.

Exit 0 on success, 2 for invalid input.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Annotated, Any

import typer
import yaml

from toposched.cli.errors import ExitCode, error_lines, warning_lines
from toposched.cli.inputs import pool_option, read_cluster, read_documents
from toposched.cli.output import NoHeadersOption, OutputOption, print_document
from toposched.cli.workloads import REGISTRY
from toposched.emit.targets import QUEUED, TARGETS, VERSIONED
from toposched.frontends.kube import input_objects
from toposched.frontends.registry import CompileContext
from toposched.intake.cluster import topologies_from_documents
from toposched.model import NotFoundError, Problem, Queue, SpecError, Topology, ToposchedError
from toposched.model.names import MAX_LABEL, name_problems

OPTIONS = {"topology": "--topology", "pool": "--pool", "kind": "--kind"}  # registry fields → options
KUBE = "kube"  # the target, and the front end, of scheduling.k8s.io objects


def compile_command(
    source: Annotated[
        str,
        typer.Argument(
            metavar="INPUT",
            help=(
                "Workload YAML: a Kueue- or KAI-annotated workload, a KAI PodGroup with its Pods, "
                "an OSMO workflow (with --pool), a Grove PodCliqueSet."
            ),
            show_default=False,
        ),
    ],
    to: Annotated[
        str | None,
        typer.Option(
            "--to",
            metavar="TARGET",
            help=f"Write the gang for this scheduler: {', '.join(TARGETS)} (default: the input's own objects).",
        ),
    ] = None,
    cluster: Annotated[
        str | None,
        typer.Option(
            "--cluster", "-c", metavar="FILE", help="Cluster file whose Topologies the input may use."
        ),
    ] = None,
    topology: Annotated[
        str | None,
        typer.Option(
            "--topology",
            "-t",
            metavar="NAME|FILE",
            help="A Topology of the cluster file, or a file of Topology / ClusterTopology objects.",
        ),
    ] = None,
    pool: Annotated[
        str | None,
        typer.Option("--pool", metavar="FILE", help="OSMO pool (with its backend) for an OSMO workflow."),
    ] = None,
    kind: Annotated[
        str | None,
        typer.Option(
            "--kind",
            metavar="HINT",
            help="Front end or kind to read INPUT as (kai, osmo, grove, kueue, Job...).",
        ),
    ] = None,
    priority: Annotated[
        str, typer.Option("--priority", help="OSMO priority: HIGH, NORMAL or LOW.")
    ] = "NORMAL",
    api_version: Annotated[
        str | None,
        typer.Option(
            "--api-version",
            metavar="VERSION",
            help="With --to kube: scheduling.k8s.io/v1beta1 (default), v1alpha3 or v1alpha2.",
        ),
    ] = None,
    queue: Annotated[
        str | None,
        typer.Option(
            "--queue",
            metavar="NAME",
            help="With --to kueue, kai or grove: the queue to submit to (default: the one the input names).",
        ),
    ] = None,
    output: OutputOption = "table",
    no_headers: NoHeadersOption = False,  # manifests have no header row: taken as by every command
) -> None:
    """Print the objects a front end would create for INPUT, or with --to the target's objects for
    the same gang. Nothing is placed; exit 0, or 2 for invalid input. Objects print as a YAML
    stream (table, wide and yaml alike), as one v1 List (json), or as KIND/NAME lines (name)."""
    try:
        written, created, warnings = _compile(
            source, to, cluster, topology, pool, kind, priority, api_version, queue
        )
    except ToposchedError as exc:
        for line in error_lines(exc):
            typer.echo(line, err=True)
        raise typer.Exit(ExitCode.INVALID) from None
    for line in warning_lines(warnings):
        typer.echo(line, err=True)
    if output in ("json", "name"):
        items = [dict(d) for d in (*written, *created)]
        listed = {"apiVersion": "v1", "kind": "List", "items": items}
        print_document(output, listed, lambda: [_name(obj) for obj in items])
        return
    parts = [_yaml(written)] if written else []
    if created:
        note = f"# created by the dry run, not in the input ({len(created)} objects):\n" if written else ""
        parts.append(note + _yaml(created))
    typer.echo("\n---\n".join(parts))


def _name(obj: Mapping[str, Any]) -> str:
    metadata = obj.get("metadata")
    name = metadata.get("name") if isinstance(metadata, Mapping) else None
    return f"{str(obj.get('kind', '')).lower()}/{name}"


def _yaml(documents: Sequence[Mapping[str, Any]]) -> str:
    return yaml.safe_dump_all([dict(d) for d in documents], sort_keys=False).rstrip("\n")


def _compile(
    source: str,
    to: str | None,
    cluster: str | None,
    topology: str | None,
    pool: str | None,
    kind: str | None,
    priority: str,
    api_version: str | None = None,
    queue: str | None = None,
) -> tuple[Sequence[Mapping[str, Any]], Sequence[Mapping[str, Any]], tuple[str, ...]]:
    """The objects to print (the input's own as written, then what the dry run creates) and the
    warnings to say; ``SpecError`` for bad input or options."""
    if to is not None and to not in TARGETS:
        raise SpecError([Problem("--to", f"unknown target {to!r}", f"use one of {', '.join(TARGETS)}")])
    if api_version is not None and to not in VERSIONED:
        takes = ", ".join(f"--to {t}" for t in sorted(VERSIONED))
        raise SpecError([Problem("--api-version", "is only for a versioned target", f"use it with {takes}")])
    if queue is not None:
        if to not in QUEUED:
            takes = ", ".join(f"--to {t}" for t in sorted(QUEUED))
            raise SpecError([Problem("--queue", "is only for a target with queues", f"use it with {takes}")])
        if problems := name_problems(queue, "--queue", max_length=MAX_LABEL):
            raise SpecError(problems)
    documents = read_documents(source, what="workload")
    known, requested, default = _topologies(cluster, topology)
    context = CompileContext(topologies=known, pools=pool_option(pool), priority=priority)
    try:
        if to is None or (
            to == KUBE and api_version is None and REGISTRY.choose(documents, kind).name == KUBE
        ):
            compiled = REGISTRY.compile(documents, context, hint=kind)
            written = {id(obj) for obj in input_objects(documents)}
            given = [o for o in compiled.objects if id(o) in written]
            return given, [o for o in compiled.objects if id(o) not in written], compiled.warnings
        chosen, compiled = REGISTRY.compile_for(
            documents, context, topology=requested, default=default, hint=kind
        )
    except NotFoundError as exc:
        raise SpecError([Problem("--topology", f"{exc.kind} {exc.name!r} not found", exc.hint)]) from None
    except SpecError as exc:  # the registry's "topology" and "pool" are this command's options
        raise type(exc)([replace(p, path=OPTIONS.get(p.path, p.path)) for p in exc.problems]) from None
    compiler = TARGETS[to] if api_version is None else VERSIONED[to](api_version)
    gang = compiled.gang if queue is None else replace(compiled.gang, queue=Queue(queue, QUEUED[to]))
    translation = compiler(gang, chosen)
    return (), translation.objects, (*compiled.warnings, *translation.unexpressed, *translation.advice)


def _topologies(
    cluster: str | None, topology: str | None
) -> tuple[tuple[Topology, ...], str | None, str | None]:
    """The topologies known (the cluster file's, a Topology file's), the one asked for by name,
    and the default: a Topology file's only one, else the cluster's only one."""
    found: list[Topology] = list(read_cluster(cluster)[0].topologies) if cluster is not None else []
    default = found[0].name if len(found) == 1 else None
    if topology is None:
        return tuple(found), None, default
    if Path(topology).is_file():
        from_file = topologies_from_documents(read_documents(topology, what="topology"), source=topology)
        names = {t.name for t in from_file}
        found = [t for t in found if t.name not in names] + from_file
        return tuple(found), None, from_file[0].name if len(from_file) == 1 else default
    return tuple(found), topology, default
