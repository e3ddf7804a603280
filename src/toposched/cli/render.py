"""Human-readable output: the tree of chosen domains, the summary line, the failure panel."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rich.console import Console, Group, RenderableType
from rich.markup import escape
from rich.panel import Panel
from rich.table import Table
from rich.text import Text
from rich.tree import Tree

from toposched.cli.hints import taint_hint
from toposched.cli.view import DomainView, NodeView, PlacementView, build_view
from toposched.model import Cluster, Gang, Placement, PodPlacement, Topology, Unschedulable, format_quantity


def resource_label(resource: str) -> str:
    """``GPU`` for GPU-like resources, else the resource name."""
    return "GPU" if "gpu" in resource.lower() else resource


def amount(value: int, resource: str) -> str:
    """A canonical amount as a quantity string (``1500m``, ``16Gi``, ``4``)."""
    return format_quantity(value, resource)


def index_ranges(indices: list[int]) -> str:
    """``[0, 1, 2, 5, 7, 8]`` → ``0-2,5,7-8``."""
    out: list[str] = []
    ordered = sorted(set(indices))
    start = prev = ordered[0] if ordered else 0
    for index in ordered[1:]:
        if index != prev + 1:
            out.append(str(start) if start == prev else f"{start}-{prev}")
            start = index
        prev = index
    if ordered:
        out.append(str(start) if start == prev else f"{start}-{prev}")
    return ",".join(out)


def pods_label(pods: list[PodPlacement]) -> str:
    """Pods grouped by PodSet with their index ranges: ``worker[0-3] leader[0]``."""
    by_group: dict[str, list[int]] = {}
    for pod in pods:
        by_group.setdefault(pod.group, []).append(pod.index)
    return " ".join(f"{group}[{index_ranges(indices)}]" for group, indices in by_group.items())


def gang_title(gang: Gang) -> str:
    """``namespace/name`` of the job."""
    return f"{gang.namespace}/{gang.name}" if gang.namespace else gang.name


def describe_gang(gang: Gang, topology: Topology) -> str:
    """What the front end compiled, one clause per PodSet: ``main: 7 pods, required rack``."""

    def name(level: str) -> str:
        return topology.short_name(level)

    parts = []
    for leaf in gang.leaves():
        text = f"{leaf.name}: {plural(len(leaf.pods), 'pod')}"
        if leaf.required is not None:
            text += f", required {name(leaf.required)}"
        elif leaf.preferred is not None:
            text += f", preferred {name(leaf.preferred)}"
        if leaf.slices:
            text += ", slices of " + ", ".join(
                f"{layer.size} per {name(layer.level)}" for layer in leaf.slices
            )
        parts.append(text)
    return "; ".join(parts)


def plural(count: int, word: str) -> str:
    """``1 pod``, ``2 pods``."""
    return f"{count} {word}{'' if count == 1 else 's'}"


def placement_tree(
    view: PlacementView,
    topology: Topology,
    placement: Placement,
    *,
    max_nodes: int | None = None,
    headers: bool = True,
) -> Tree:
    """The chosen domains, coarsest first, with pods per node and free capacity before → after.

    ``max_nodes`` folds long node lists (the demo) into the first few nodes and a count;
    ``headers=False`` leaves out the first line (topology, policy, what the figures are).
    """
    label = resource_label(view.resource)
    tree = Tree(
        Text.assemble(
            ("topology ", "dim"),
            (topology.name, "bold"),
            ("  policy ", "dim"),
            (str(placement.policy), "bold"),
            (f"  (free {label}: before → after)", "dim"),
        ),
        hide_root=not headers,
    )
    for domain in view.roots:
        _add_domain(tree, domain, view, topology, max_nodes)
    for node in view.unplaced_nodes:
        tree.add(_node_text(node, view))
    return tree


def summary_line(view: PlacementView, topology: Topology, gang: Gang) -> Text:
    """``✓ placed 16 pods of ns/job across 1 zone, 1 block, 1 rack, 16 nodes``."""
    spans = [plural(count, topology.short_name(level)) for level, count in view.domains_per_level.items()]
    where = ", ".join([*spans, plural(view.nodes_used, "node")])
    return Text.assemble(
        ("✓ placed ", "bold green"), f"{plural(view.pods, 'pod')} of {gang_title(gang)} across {where}"
    )


def unschedulable_panel(gang: Gang, result: Unschedulable, topology: Topology | None = None) -> Panel:
    """A red panel: the reason, then every structured fact the engine gave.

    When taints alone keep the gang off every node, the panel leads with them and the tolerations
    to add, and leaves out the best domain and shortfall, which no capacity would change."""
    hint = taint_hint(result.excluded, result.total_nodes)
    facts = Table.grid(padding=(0, 2))
    facts.add_column(style="bold")
    facts.add_column()
    for key, value in explanation_rows(result, topology, capacity=hint is None):
        facts.add_row(key, escape(value))
    body: list[RenderableType] = [Text(result.message)]
    if hint is not None:
        body = [
            Text(hint.headline(), style="bold"),
            Text(hint.advice()),
            Text(hint.tolerations_yaml(), style="cyan"),
            Text(""),
            Text(result.message, style="dim"),
        ]
    if facts.row_count:
        body += [Text(""), facts]
    return Panel(
        Group(*body),
        title=Text(f"✗ cannot place {gang_title(gang)}", style="bold red"),
        subtitle=Text(f"policy {result.policy}, topology {result.topology}", style="dim"),
        border_style="red",
        expand=False,
    )


def explanation_rows(
    result: Unschedulable, topology: Topology | None = None, *, capacity: bool = True
) -> list[tuple[str, str]]:
    """The structured reasons of an ``Unschedulable`` as (label, text) rows, empty ones left out;
    ``capacity=False`` leaves out the best domain and the shortfall."""

    def level(key: str) -> str:
        short = topology.short_name(key) if topology is not None else key
        return key if short == key else f"{short} ({key})"

    rows: list[tuple[str, str]] = []
    if result.group is not None:
        rows.append(("pod set", result.group))
    if result.level is not None:
        rows.append(("level", level(result.level)))
    if capacity and result.best_domain:
        rows.append(("best domain", " / ".join(result.best_domain)))
    if result.fit is not None and result.needed is not None:
        rows.append(("fits", f"{result.fit} of {plural(result.needed, result.unit)}"))
    for layer in result.layers:
        rows.append(("slices", f"{level(layer.level)}: {layer.fit} of {layer.needed} fit"))
    if result.total_nodes is not None:
        rows.append(("nodes", str(result.total_nodes)))
    for key, count in result.excluded.items():
        rows.append(("excluded", f"{plural(count, 'node')}: {key}"))
    for resource, missing in result.shortfall.items() if capacity else ():
        rows.append(("short of", f"{format_quantity(missing, resource)} {resource}"))
    if result.note:
        rows.append(("search", result.note))
    return rows


def print_result(
    console: Console,
    cluster: Cluster,
    topology: Topology,
    gang: Gang,
    result: Placement | Unschedulable,
    *,
    max_nodes: int | None = None,
    headers: bool = True,
) -> None:
    """The table view of ``toposched place``: tree and summary, or the failure panel."""
    if isinstance(result, Placement):
        view = build_view(cluster, topology, gang, result)
        console.print(placement_tree(view, topology, result, max_nodes=max_nodes, headers=headers))
        console.print(summary_line(view, topology, gang))
        if result.note:
            console.print(Text(result.note, style="yellow"))
    else:
        console.print(unschedulable_panel(gang, result, topology))


def _add_domain(
    parent: Tree, domain: DomainView, view: PlacementView, topology: Topology, max_nodes: int | None
) -> None:
    label = resource_label(view.resource)
    text = Text.assemble(
        (f"{topology.short_name(domain.level)} ", "dim"),
        (domain.value, "bold cyan"),
        f"  {plural(domain.pods, 'pod')}",
        (
            f"  {label} {amount(domain.before, view.resource)} → {amount(domain.after, view.resource)}",
            "green",
        ),
    )
    branch = parent.add(text)
    for child in domain.children:
        _add_domain(branch, child, view, topology, max_nodes)
    shown = domain.nodes if max_nodes is None else domain.nodes[:max_nodes]
    for node in shown:
        branch.add(_node_text(node, view))
    hidden = domain.nodes[len(shown) :]
    if hidden:
        pods = sum(len(node.pods) for node in hidden)
        branch.add(Text(f"… {len(hidden)} more nodes with {pods} pods", style="dim"))


def _node_text(node: NodeView, view: PlacementView) -> Text:
    return Text.assemble(
        (node.name, "bold"),
        f"  {pods_label(node.pods)}",
        (
            f"  {resource_label(view.resource)} {amount(node.before, view.resource)}"
            f" → {amount(node.after, view.resource)}",
            "green",
        ),
    )


def condition_lines(objects: Sequence[Mapping[str, Any]]) -> list[Text]:
    """One line per object with ``status.conditions``: ``PodGroup NAME: TYPE=STATUS (REASON) MESSAGE``."""
    lines: list[Text] = []
    for obj in objects:
        for condition in obj.get("status", {}).get("conditions", []):
            ok = condition.get("status") == "True"
            line = Text(f"{obj.get('kind')} {obj.get('metadata', {}).get('name')}: ")
            line.append(f"{condition.get('type')}={condition.get('status')}", style="green" if ok else "red")
            line.append(f" ({condition.get('reason')})")
            if condition.get("message"):
                line.append(f" {condition['message']}")
            lines.append(line)
    return lines
