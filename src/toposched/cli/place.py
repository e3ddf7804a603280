"""``toposched place JOB.yaml --cluster CLUSTER.yaml``: place one workload and show where it goes.

The input may be a Kueue-annotated workload, a KAI-annotated workload or PodGroup with its pods,
an OSMO workflow (with ``--pool``) or a Grove PodCliqueSet; the front-end registry tells them apart."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Annotated, Any

import typer

from toposched.cli.cluster_options import ClusterOption, ContextOption, KubeconfigOption
from toposched.cli.errors import ExitCode, error_lines, exit_code_of, warning_lines
from toposched.cli.inputs import (
    POLICIES,
    SEARCHES,
    ClusterSource,
    load_cluster,
    parse_policy,
    parse_search,
    pool_option,
    read_all,
    topology_option,
)
from toposched.cli.output import NoHeadersOption, OutputOption, console, print_document
from toposched.cli.render import condition_lines, print_result
from toposched.cli.workloads import PlacementAttempt, place_documents
from toposched.emit.kube import status_objects
from toposched.emit.result import result_document
from toposched.engine import PlacementOptions
from toposched.frontends.kube import input_objects
from toposched.model import (
    MAX_PODS_PER_GANG,
    Cluster,
    NotFoundError,
    Problem,
    Search,
    SpecError,
    ToposchedError,
)
from toposched.model.labels import label_problems
from toposched.wire.scheduling import POD_GROUP, is_scheduling_object

OPTIONS = {"topology": "--topology", "pool": "--pool"}  # compile-context fields → options


JobArgument = Annotated[
    str,
    typer.Argument(
        metavar="JOB",
        help=(
            "Workload as YAML (- reads stdin): Kueue- or KAI-annotated Job, JobSet, LeaderWorkerSet, "
            "Kubeflow job; a KAI PodGroup with its Pods; an OSMO workflow; a Grove PodCliqueSet; "
            "a scheduling.k8s.io Workload with PodGroups and Pods, or a Job with spec.scheduling."
        ),
        show_default=False,
    ),
]
TopologyOption = Annotated[
    str | None,
    typer.Option(
        "--topology",
        "-t",
        metavar="NAME|FILE",
        help=(
            "A Topology of the cluster file, or a Topology file (default: the one the workload "
            "names, else the only one). For Grove: a file of ClusterTopology objects."
        ),
    ),
]
PoolOption = Annotated[
    str | None,
    typer.Option("--pool", metavar="FILE", help="OSMO pool (with its backend) for an OSMO workflow."),
]
PolicyOption = Annotated[
    str | None,
    typer.Option(
        "--policy",
        "-p",
        metavar="POLICY",
        help=(
            f"How domains are ordered: {', '.join(POLICIES)}. A policy the workload names "
            "(toposched.io/policy) comes first; without either, mixed for Kueue, binpack for KAI, "
            "OSMO, Grove and upstream PodGroups."
        ),
    ),
]
SearchOption = Annotated[
    str,
    typer.Option(
        "--search",
        metavar="MODE",
        help=(
            "complete (default): each upstream scheduler's own choice, else an exact bounded search "
            f"that places any gang that fits; faithful: that choice only ({', '.join(SEARCHES)})."
        ),
    ),
]
MaxPodsOption = Annotated[
    int,
    typer.Option(
        "--max-pods", metavar="N", min=1, help="Pods one workload may have; larger ones are refused."
    ),
]


@dataclass(frozen=True, slots=True)
class Attempt:
    """A placement from the command line's inputs, with the options it was made under."""

    outcome: PlacementAttempt
    warnings: tuple[str, ...]
    policy: str
    search: Search
    documents: tuple[Any, ...] = ()  # the workload as read


def place_command(
    job: JobArgument,
    cluster: ClusterOption = None,
    topology: TopologyOption = None,
    pool: PoolOption = None,
    policy: PolicyOption = None,
    output: OutputOption = "table",
    search: SearchOption = Search.COMPLETE.value,
    max_pods: MaxPodsOption = MAX_PODS_PER_GANG,
    no_headers: NoHeadersOption = False,
    context: ContextOption = None,
    kubeconfig: KubeconfigOption = None,
) -> None:
    """Place a workload on a cluster (a dump file, else the kubeconfig's live cluster), all or
    nothing. Exit 0 placed, 3 does not fit, 2 invalid input, 1 the live cluster cannot be read."""
    source = ClusterSource(cluster, context, kubeconfig)
    attempt = attempt_placement(job, source, topology, pool, policy, search, max_pods)
    outcome = attempt.outcome
    # kube-scheduler reports on the PodGroups themselves: show the conditions it would write.
    report = kube_report(outcome, attempt.documents) if outcome.frontend == "kube" else None
    document = result_document(outcome.result, attempt.search)
    if report is not None:
        document["podGroups"] = list(report.pod_groups)
        document["created"] = list(report.created)
    if not print_document(output, document, lambda: pod_names(document)):
        out = console()
        print_result(
            out, outcome.cluster, outcome.topology, outcome.gang, outcome.result, headers=not no_headers
        )
        if report is not None:
            for line in condition_lines([*report.pod_groups, *report.created]):
                out.print(line)
    raise typer.Exit(ExitCode.PLACED if outcome.placed else ExitCode.UNSCHEDULABLE)


def pod_names(document: Mapping[str, Any]) -> list[str]:
    """``-o name`` of a placement: each placed pod as ``pod/NAME`` (none when it does not place)."""
    return [f"pod/{pod['name']}" for pod in document.get("pods") or ()]


@dataclass(frozen=True, slots=True)
class KubeReport:
    """What ``place`` says of a kube input: its PodGroups as written, with the condition
    kube-scheduler would set, and apart from them the ``scheduling.k8s.io`` objects the dry run
    creates (a Job's Workload and PodGroup, a PodGroup for 1.35 pods), PodGroups with status."""

    pod_groups: tuple[dict[str, Any], ...]
    created: tuple[dict[str, Any], ...]


def kube_report(outcome: PlacementAttempt, documents: Sequence[Any]) -> KubeReport:
    written = {id(obj) for obj in input_objects(documents)}
    objects = [o for o in outcome.objects if is_scheduling_object(o)]
    given = [o for o in objects if id(o) in written]
    made = [o for o in objects if id(o) not in written]

    def with_status(chosen: list[Mapping[str, Any]]) -> tuple[dict[str, Any], ...]:
        groups = [o for o in chosen if o.get("kind") == POD_GROUP]
        statuses = iter(
            status_objects(groups, outcome.gang, outcome.result, outcome.cluster.nodes, at=time.time())
        )
        return tuple(next(statuses) if o.get("kind") == POD_GROUP else dict(o) for o in chosen)

    return KubeReport(tuple(o for o in with_status(given) if o.get("kind") == POD_GROUP), with_status(made))


def attempt_placement(
    job: str,
    cluster: ClusterSource,
    topology: str | None,
    pool: str | None,
    policy: str | None,
    search: str,
    max_pods: int,
) -> Attempt:
    """Check the options, read the files, place; invalid input exits 2 with one line a problem,
    and warnings go to standard error."""
    try:
        problems: list[Problem] = []
        chosen_policy: str | None = None
        chosen_search = Search.COMPLETE
        try:
            chosen_policy = parse_policy(policy)
        except SpecError as exc:
            problems.extend(exc.problems)
        try:
            chosen_search = parse_search(search)
        except SpecError as exc:
            problems.extend(exc.problems)
        documents = read_all({"job": job}, problems)
        cluster_read: tuple[Cluster, list[str]] | None = None
        try:
            cluster_read = load_cluster(cluster)
        except SpecError as exc:
            problems.extend(exc.problems)
        if problems or cluster_read is None:
            raise SpecError(problems)
        loaded, warnings = cluster_read
        if not loaded.nodes:  # e.g. the job file given twice: say so, not "no topology domains"
            if cluster.file is None:
                message, hint = "the live cluster has no nodes", "add nodes, or give a dump: --cluster FILE"
            else:
                message = "the cluster file has no nodes"
                hint = "give a dump with Node objects: kubectl get nodes,pods -A -o yaml"
            raise SpecError([Problem(cluster.field, message, hint)])
        options = PlacementOptions(search=chosen_search, policy=chosen_policy)
        outcome = _place(documents["job"], loaded, topology, pool, options, max_pods)
    except ToposchedError as exc:
        for line in error_lines(exc):
            typer.echo(line, err=True)
        raise typer.Exit(exit_code_of(exc)) from None
    for line in warning_lines([*warnings, *outcome.warnings]):
        typer.echo(line, err=True)
    return Attempt(outcome, tuple(warnings), outcome.policy, chosen_search, tuple(documents["job"]))


def _place(
    documents: list[Any],
    cluster: Cluster,
    topology: str | None,
    pool: str | None,
    options: PlacementOptions,
    max_pods: int,
) -> PlacementAttempt:
    """Resolve ``--topology`` and ``--pool`` and place; a topology named but not defined is an
    option error."""
    choice = topology_option(cluster, topology)
    try:
        outcome = place_documents(
            documents,
            choice.cluster,
            topology=choice.requested,
            default=choice.default,
            pools=pool_option(pool),
            options=options,
            max_pods=max_pods,
        )
    except NotFoundError as exc:
        raise SpecError([Problem("--topology", f"{exc.kind} {exc.name!r} not found", exc.hint)]) from None
    except SpecError as exc:  # the registry's "topology" and "pool" are this command's options
        problems = [replace(p, path=OPTIONS.get(p.path, p.path)) for p in exc.problems]
        raise type(exc)(problems) from None
    if pool is not None and outcome.frontend != "osmo":
        raise SpecError([Problem("--pool", "is only used with OSMO workflows", "leave it out")])
    if not choice.from_file:
        return outcome
    labels = tuple(str(p) for p in label_problems(outcome.topology, outcome.cluster.nodes))
    return replace(outcome, warnings=(*outcome.warnings, *labels))
