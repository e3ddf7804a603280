"""A study's results as files: ``metrics.json`` and ``report.md`` (the comparison table, the
safety checks and links to the plots)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from toposched.sim.clusters import total_gpus
from toposched.sim.metrics import Metrics, metrics_of
from toposched.sim.results import ReplayResult
from toposched.sim.study import Inputs, StudySpec

_COLUMNS = (
    "policy",
    "utilisation",
    "wait mean",
    "wait p50",
    "wait p95",
    "wait p99",
    "preferred hit",
    "fragmented GPUs",
    "never placed",
    "evictions",
    "replacements",
    "lost",
    "over-commit",
    "CPU s",
)


def write_metrics(path: Path, spec: StudySpec, inputs: Inputs, metrics: Sequence[Metrics]) -> None:
    """The inputs and every policy's figures as strict JSON (every number finite: the
    configuration and the trace's times are, so a NaN here is a bug, not output)."""
    document = {
        "trace": spec.trace,
        "cluster": spec.cluster,
        "jobs": len(inputs.jobs),
        "skipped_rows_without_gpus": inputs.skipped,
        "gpus": total_gpus(inputs.cluster),
        "until": spec.until,
        "node_failures_injected": max((m.node_failures for m in metrics), default=0),
        "config": spec.config.model_dump(mode="json"),
        "policies": [m.as_json() for m in metrics],
    }
    path.write_text(json.dumps(document, indent=2, allow_nan=False) + "\n", encoding="utf-8")


def comparison_table(metrics: Sequence[Metrics]) -> str:
    """The per-policy comparison as a Markdown table."""
    lines = ["| " + " | ".join(_COLUMNS) + " |", "|" + "---|" * len(_COLUMNS)]
    for m in metrics:
        hit = "n/a" if m.preferred_hit_share is None else f"{m.preferred_hit_share:.1%}"
        cells = (
            m.policy,
            f"{m.utilisation:.1%}",
            duration(m.wait_mean),
            duration(m.wait_p50),
            duration(m.wait_p95),
            duration(m.wait_p99),
            hit,
            f"{m.fragmented_gpus_mean:.0f}",
            str(m.never_placed),
            str(m.evictions),
            str(m.replacements),
            str(m.lost_jobs),
            str(m.overcommits),
            f"{m.cpu_seconds:.1f}",
        )
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def write_report(
    path: Path,
    spec: StudySpec,
    inputs: Inputs,
    results: Sequence[ReplayResult],
    plots: Sequence[Path],
) -> list[Metrics]:
    """``report.md`` beside the plots; returns the metrics it shows."""
    metrics = [metrics_of(r) for r in results]
    gpus = total_gpus(inputs.cluster)
    span = max((r.end for r in results), default=0.0)
    lines = [
        "# Trace replay",
        "",
        f"- trace: `{spec.trace}`, {len(inputs.jobs)} jobs with GPUs"
        + (f" ({inputs.skipped} rows without GPUs skipped)" if inputs.skipped else ""),
        f"- cluster: `{spec.cluster}`, {len(inputs.cluster.nodes)} nodes, {gpus} GPUs,"
        f" pods of up to {inputs.shape.gpus_per_node} GPUs, racks of {inputs.shape.nodes_per_rack} nodes",
        f"- replayed: {duration(span)} of trace time"
        + (f" (stopped at {duration(spec.until)})" if spec.until else ""),
        f"- node failures injected: {max((r.node_failures for r in results), default=0)}",
        "",
        "## Policies",
        "",
        comparison_table(metrics),
        "",
        "Wait is first admission minus arrival over the jobs admitted; utilisation and fragmented",
        "GPUs (free GPUs on racks partly used or down, which cannot host a whole-rack gang) are",
        "time averages; preferred hit is the share of jobs with a preferred level placed inside one",
        "domain of it.",
        "",
        "## Checks",
        "",
    ]
    for result in results:
        problems = [*result.lost, *result.overcommits]
        if problems:
            lines.append(
                f"- {result.policy}: **{len(result.lost)} job(s) lost, {len(result.overcommits)} over-commit(s)**"
            )
            lines.extend(f"  - {p}" for p in problems[:10])
        else:
            lines.append(f"- {result.policy}: no job lost, no node over-committed")
    if plots:
        lines += ["", "## Plots", ""]
        lines += [f"![{p.stem}]({p.name})" for p in plots]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return metrics


def duration(seconds: float | None) -> str:
    """Seconds as the largest unit that keeps the number readable."""
    if seconds is None:
        return "-"
    for unit, size in (("d", 86_400.0), ("h", 3_600.0), ("min", 60.0)):
        if seconds >= size:
            return f"{seconds / size:.1f} {unit}"
    return f"{seconds:.0f} s"
