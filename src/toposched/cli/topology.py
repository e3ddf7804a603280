"""``toposched topology lint`` and ``toposched topology show``: is the cluster's topology what
the admin believes, and how full is each domain."""

from __future__ import annotations

from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text
from rich.tree import Tree

from toposched.cli.cluster_options import ClusterOption, ContextOption, KubeconfigOption
from toposched.cli.errors import ExitCode, error_lines, exit_code_of
from toposched.cli.inputs import ClusterSource, cluster_topologies
from toposched.cli.inspect import topology_app
from toposched.cli.output import NoHeadersOption, OutputOption, console, print_document
from toposched.cli.render import amount, resource_label
from toposched.model import Problem, Topology, ToposchedError
from toposched.topology.lint import LevelStats, LintReport, lint
from toposched.topology.occupancy import DomainUsage, Path, members_of, occupancy, shown_resources

TopologyOption = Annotated[
    str | None,
    typer.Option(
        "--topology",
        "-t",
        metavar="NAME|FILE",
        help="A Topology of the cluster file, or a Topology file (default: every topology of the cluster).",
    ),
]
BAR = 20


def lint_command(
    cluster: ClusterOption = None,
    topology: TopologyOption = None,
    output: OutputOption = "table",
    no_headers: NoHeadersOption = False,
    context: ContextOption = None,
    kubeconfig: KubeconfigOption = None,
) -> None:
    """Check how the nodes carry the topology's level labels. Exit 0 when no errors (warnings
    allowed), 2 when the cluster has errors or the input is invalid."""
    try:
        loaded, topologies = cluster_topologies(ClusterSource(cluster, context, kubeconfig), topology)
    except ToposchedError as exc:
        raise _fail(exc) from None
    reports = [lint(t, loaded.nodes, loaded.pods) for t in topologies]
    document = {"topologies": [_report_document(r) for r in reports]}
    if not print_document(output, document, lambda: [f"topology/{t.name}" for t in topologies]):
        out = console()
        for report in reports:
            _print_report(out, report, headers=not no_headers)
    if any(r.errors for r in reports):
        raise typer.Exit(ExitCode.INVALID)


def show_command(
    cluster: ClusterOption = None,
    topology: TopologyOption = None,
    resource: Annotated[
        str | None, typer.Option("--resource", "-r", help="Resource to show (default: the GPUs).")
    ] = None,
    depth: Annotated[
        int | None,
        typer.Option(
            "--depth",
            "-d",
            min=1,
            help="Levels to show (default: as many as the terminal holds; every level off a terminal).",
        ),
    ] = None,
    output: OutputOption = "table",
    no_headers: NoHeadersOption = False,
    context: ContextOption = None,
    kubeconfig: KubeconfigOption = None,
) -> None:
    """The domain tree with an occupancy bar per domain: used by pods (█), unavailable on
    NotReady or cordoned nodes (░), free (·). -o json|yaml: every domain of the levels shown."""
    try:
        loaded, topologies = cluster_topologies(ClusterSource(cluster, context, kubeconfig), topology)
    except ToposchedError as exc:
        raise _fail(exc) from None
    out = console()
    trees: list[tuple[Topology, list[dict[Path, DomainUsage]], str, int]] = []
    for chosen in topologies:
        members = members_of(chosen, loaded.nodes)
        shown = resource or shown_resources(members)[0]
        levels = occupancy(chosen, members, loaded.pods, shown)
        # Off a terminal (or as a document) nothing is cut: every level, as kubectl prints.
        fitting = (
            _deepest_fitting(levels, out.size.height - 4)
            if out.is_terminal and output in ("table", "wide")
            else 99
        )
        deepest = min(fitting if depth is None else depth - 1, len(levels) - 1)
        trees.append((chosen, levels, shown, deepest))
    document = {"topologies": [_occupancy_document(*tree) for tree in trees]}
    if not print_document(output, document, lambda: [f"topology/{t.name}" for t, *_ in trees]):
        for chosen, levels, shown, deepest in trees:
            out.print(_tree(chosen, levels, shown, deepest, headers=not no_headers))


topology_app.command("lint")(lint_command)
topology_app.command("show")(show_command)


def _fail(exc: ToposchedError) -> typer.Exit:
    for line in error_lines(exc):
        typer.echo(line, err=True)
    return typer.Exit(exit_code_of(exc))


def _report_document(report: LintReport) -> dict[str, Any]:
    def problems(items: list[Problem]) -> list[dict[str, str]]:
        return [{"path": p.path, "message": p.message, "hint": p.hint} for p in items]

    return {
        "topology": report.topology.name,
        "levels": [_level_document(stats) for stats in report.levels],
        "memberNodes": report.members,
        "outsideNodes": report.outside,
        "errors": problems(report.errors),
        "warnings": problems(report.warnings),
    }


def _level_document(stats: LevelStats) -> dict[str, Any]:
    return {
        "key": stats.key,
        "domains": stats.domains,
        "nodesPerDomain": {"min": stats.nodes_min, "median": stats.nodes_median, "max": stats.nodes_max},
        "resource": stats.resource,
        "capacityPerDomain": {"min": stats.capacity_min, "max": stats.capacity_max},
        "free": {"total": stats.free_total, "mostInOneDomain": stats.free_max},
    }


def _occupancy_document(
    topology: Topology, levels: list[dict[Path, DomainUsage]], resource: str, deepest: int
) -> dict[str, Any]:
    """``topology show -o json``: per domain of the levels shown, its path and its split."""
    domains = [
        {
            "level": topology.levels[level],
            "path": list(path),
            "nodes": usage.nodes,
            "capacity": usage.capacity,
            "used": usage.used,
            "unavailable": usage.unavailable,
            "free": usage.free,
        }
        for level in range(deepest + 1)
        for path, usage in sorted(levels[level].items())
    ]
    return {"topology": topology.name, "resource": resource, "domains": domains}


def _print_report(console: Console, report: LintReport, *, headers: bool) -> None:
    topology = report.topology
    console.print(
        Text.assemble(
            (f"topology {topology.name}", "bold"),
            f": {report.members} member node(s), {report.outside} outside",
        )
    )
    unit = resource_label(report.levels[0].resource) if report.levels else ""
    table = Table(
        "level",
        "label",
        "domains",
        "nodes/domain",
        f"{unit}/domain",
        f"free {unit}",
        box=None,
        show_header=headers,
    )
    for stats in report.levels:
        table.add_row(
            topology.short_name(stats.key),
            stats.key,
            str(stats.domains),
            _span(stats.nodes_min, stats.nodes_max, "pods"),
            _span(stats.capacity_min, stats.capacity_max, stats.resource),
            f"{amount(stats.free_total, stats.resource)} (≤ {amount(stats.free_max, stats.resource)} in one)",
        )
    console.print(table)
    for severity, items in (("error", report.errors), ("warning", report.warnings)):
        for problem in items:
            console.print(
                Text.assemble((f"{severity}: ", "red" if severity == "error" else "yellow"), str(problem))
            )
    if not report.findings:
        console.print(Text("no problems found", style="green"))
    console.print()


def _span(low: int, high: int, resource: str) -> str:
    return amount(low, resource) if low == high else f"{amount(low, resource)}-{amount(high, resource)}"


def _deepest_fitting(levels: list[dict[Path, DomainUsage]], lines: int) -> int:
    """The deepest level whose tree (with every level above it) fits in ``lines``; at least 0."""
    total = 0
    for level, domains in enumerate(levels):
        total += len(domains)
        if total > lines:
            return max(0, level - 1)
    return len(levels) - 1


def _tree(
    topology: Topology, levels: list[dict[Path, DomainUsage]], resource: str, deepest: int, *, headers: bool
) -> Tree:
    """The domains down to level ``deepest``; ``headers=False`` leaves out the topology's line."""
    total = DomainUsage()
    for usage in levels[0].values():
        total.nodes += usage.nodes
        total.capacity += usage.capacity
        total.used += usage.used
        total.unavailable += usage.unavailable
    names = [topology.short_name(key) for key in topology.levels[: deepest + 1]]
    title = f"topology {topology.name}"
    # Each level indents by 4 columns; pad labels so every bar starts in one column.
    width = max(
        len(title),
        *(
            4 * (level + 1) + len(f"{names[level]} {path[-1]}")
            for level in range(deepest + 1)
            for path in levels[level]
        ),
    )
    root = Tree(_line(title, width, total, resource), hide_root=not headers)
    branches: dict[Path, Tree] = {(): root}
    for level in range(deepest + 1):
        for path, usage in sorted(levels[level].items()):
            label = f"{names[level]} {path[-1]}"
            branches[path] = branches[path[:-1]].add(_line(label, width - 4 * (level + 1), usage, resource))
    return root


def _line(label: str, width: int, usage: DomainUsage, resource: str) -> Text:
    scale = BAR / usage.capacity if usage.capacity else 0.0
    used = round(usage.used * scale)
    unavailable = min(BAR - used, round(usage.unavailable * scale))
    free = BAR - used - unavailable
    return Text.assemble(
        (f"{label:<{width}}  ", "bold"),
        ("█" * used, "red"),
        ("░" * unavailable, "bright_black"),
        ("·" * free, "green"),
        f" {amount(usage.free, resource)}/{amount(usage.capacity, resource)} {resource_label(resource)} free, "
        f"{usage.nodes} node(s)",
    )
