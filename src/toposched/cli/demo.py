"""``toposched demo``: the KEP-2724 worked examples, then jobs on the bundled sample cluster.

Everything goes through the same path as ``toposched place``: cluster YAML → cluster loader,
Kueue job YAML → Kueue front end → engine. No network, no server.
"""

from __future__ import annotations

from collections import Counter
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from toposched.cli.errors import error_lines
from toposched.cli.kep import EXAMPLES, Capacities, Example, ExampleTable, assigned, notation, same_assignment
from toposched.cli.output import console as new_console
from toposched.cli.render import describe_gang, plural, print_result
from toposched.cli.view import free_amounts
from toposched.cli.workloads import PlacementAttempt, place_text
from toposched.engine import PlacementOptions
from toposched.intake.cluster import load_cluster
from toposched.model import Cluster, Placement, Search, Topology, ToposchedError
from toposched.samples import read_sample, sample_names, sample_path

SAMPLE_NODES_SHOWN = 3  # nodes listed per domain in the sample-cluster trees


def demo_command(
    kep: Annotated[bool, typer.Option("--kep/--no-kep", help="Show the KEP-2724 worked examples.")] = True,
    sample: Annotated[
        bool, typer.Option("--sample/--no-sample", help="Place the jobs on the sample cluster.")
    ] = True,
) -> None:
    """Run the Kueue KEP-2724 worked examples and a few jobs on a bundled 288-node GB200 cluster."""
    console = new_console()
    failures = 0
    if kep:
        for number, example in enumerate(EXAMPLES, start=1):
            failures += _run_kep(console, number, example)
    if sample:
        failures += _run_sample(console)
    if failures:
        console.print(Text(f"{failures} example(s) did not run as documented", style="bold red"))
        raise typer.Exit(1)


def _run_kep(console: Console, number: int, example: Example | ExampleTable) -> int:
    _heading(console, f"KEP-2724 example {number}", example.title)
    console.print(Text(f"KEP: {example.kep}", style="italic"))
    if isinstance(example, ExampleTable):
        return _run_table(console, example)
    try:
        outcome = _place_example(example)
    except ToposchedError as exc:
        return _report_error(console, exc)
    levels = " → ".join(outcome.topology.short_name(level) for level in example.levels)
    console.print(
        Text(f"cluster: pods per host {notation(example.capacities, compact=True)} ({levels})", style="dim")
    )
    console.print(Text(f"job: {describe_gang(outcome.gang, outcome.topology)}", style="dim"))
    print_result(console, outcome.cluster, outcome.topology, outcome.gang, outcome.result)
    got = _assignment(example, outcome)
    ok = same_assignment(example.capacities, example.expected, got)
    console.print(
        Text.assemble(
            ("pods per host  KEP ", "dim"),
            notation(example.expected, compact=True),
            ("  toposched ", "dim"),
            notation(got, compact=True),
            ("  ✓ as in the KEP" if ok else "  ✗ differs from the KEP", "green" if ok else "bold red"),
        )
    )
    console.print()
    return 0 if ok else 1


def _run_table(console: Console, table: ExampleTable) -> int:
    grid = Table(
        header_style="bold", caption="pods per host, nested [block [rack [host]]]", caption_style="dim"
    )
    for column in ("capacities", "pods", "slice", "KEP", "toposched", ""):
        grid.add_column(column, overflow="fold")
    failures = 0
    for row in table.rows:
        slice_size = row.annotations.get("kueue.x-k8s.io/podset-slice-size", "1")
        try:
            outcome = _place_example(row)
        except ToposchedError as exc:
            grid.add_row(
                notation(row.capacities, compact=True),
                str(row.count),
                slice_size,
                notation(row.expected, compact=True),
                "; ".join(error_lines(exc)),
                "✗",
            )
            failures += 1
            continue
        got = _assignment(row, outcome)
        ok = same_assignment(row.capacities, row.expected, got)
        failures += 0 if ok else 1
        shown = notation(got, compact=True) if outcome.placed else "does not fit"
        grid.add_row(
            notation(row.capacities, compact=True),
            str(row.count),
            slice_size,
            notation(row.expected, compact=True),
            shown,
            Text("✓", style="green") if ok else Text("✗", style="bold red"),
        )
    console.print(grid)
    console.print()
    return failures


def _run_sample(console: Console) -> int:
    try:
        cluster = load_cluster(read_sample("cluster.yaml"), source="samples/cluster.yaml")
        topology = cluster.topology()
    except ToposchedError as exc:
        return _report_error(console, exc)
    _heading(console, "Sample cluster", f"288 GB200 nodes ({sample_path('cluster.yaml')})")
    console.print(_cluster_summary(cluster, topology))
    console.print()
    failures = 0
    for number, name in enumerate(sample_names("jobs"), start=1):
        text = read_sample(name)
        title, description = _comment(text)
        _heading(console, f"Sample job {number}", title)
        if description:
            console.print(Text(description, style="italic"))
        command = f"$ toposched place {sample_path(name)} --cluster {sample_path('cluster.yaml')}"
        console.print(Text(command, style="dim"))
        try:
            outcome = place_text(text, cluster, source=name)
        except ToposchedError as exc:
            failures += _report_error(console, exc)
            continue
        print_result(
            console,
            outcome.cluster,
            outcome.topology,
            outcome.gang,
            outcome.result,
            max_nodes=SAMPLE_NODES_SHOWN,
        )
        console.print()
    return failures


def _place_example(example: Example) -> PlacementAttempt:
    cluster = load_cluster(example.cluster_yaml(), source="kep-example")
    # The KEP's worked examples are Kueue's own results: its policy, its (faithful) search.
    options = PlacementOptions(search=Search.FAITHFUL, policy=example.policy)
    return place_text(example.job_yaml(), cluster, options=options, source="kep-example")


def _assignment(example: Example, outcome: PlacementAttempt) -> Capacities:
    result = outcome.result
    counts: Counter[str] = Counter()
    if isinstance(result, Placement):
        counts.update(pod.node for pod in result.pods if pod.node is not None)
    return assigned(example.levels, example.capacities, counts)


def _heading(console: Console, label: str, title: str) -> None:
    console.print(
        Text.assemble(
            ("━━ ", "bold magenta"), (label, "bold magenta"), (" ━━ ", "bold magenta"), (title, "bold")
        )
    )


def _cluster_summary(cluster: Cluster, topology: Topology) -> Text:
    """``288 nodes in 2 zones, 4 blocks, 16 racks; 1152 GPUs, 1076 free (...)``."""
    gpu = "nvidia.com/gpu"
    total = sum(node.allocatable[gpu] for node in cluster.nodes)
    free = sum(free_amounts(cluster, gpu).values())
    cordoned = sum(1 for node in cluster.nodes if not node.schedulable)
    domains = ", ".join(
        plural(
            len({node.labels[level] for node in cluster.nodes if level in node.labels}),
            topology.short_name(level),
        )
        for level in topology.levels[:-1]
    )
    levels = " → ".join(topology.short_name(level) for level in topology.levels)
    return Text(
        f"{plural(len(cluster.nodes), 'node')} in {domains}; {total} GPUs, {free} free "
        f"({plural(len(cluster.pods), 'pod')} already running, {plural(cordoned, 'cordoned node')}); "
        f"topology {topology.name!r}: {levels}"
    )


def _comment(text: str) -> tuple[str, str]:
    """The first comment line of a sample job is its title, the following ones describe it."""
    lines = []
    for line in text.splitlines():
        if not line.startswith("#"):
            break
        lines.append(line.lstrip("# ").rstrip())
    return (lines[0] if lines else "job"), " ".join(lines[1:])


def _report_error(console: Console, exc: ToposchedError) -> int:
    for line in error_lines(exc):
        console.print(Text(f"error: {line}", style="bold red"))
    return 1
