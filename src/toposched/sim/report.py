"""A study's results as files: ``metrics.json`` and ``report.md`` (each metric's mean and 95%
interval per policy, which policy is best on each and by how much, waits per gang size and
per queue, the safety checks and links to the plots)."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path

from toposched.sim.clusters import total_gpus
from toposched.sim.metrics import SIZE_BUCKETS
from toposched.sim.results import ReplayResult
from toposched.sim.stats import Interval, Verdict
from toposched.sim.study import Inputs, StudySpec
from toposched.sim.summary import MEASURES, GroupSummary, Measure, PolicySummary, verdicts

_UNITS = {m.key: m.unit for m in MEASURES}


def write_metrics(path: Path, spec: StudySpec, inputs: Inputs, summaries: Sequence[PolicySummary]) -> None:
    """The inputs, every replication's figures and their intervals as strict JSON (every number
    finite: the configuration and the trace's times are, so a NaN here is a bug, not output)."""
    document = {
        "trace": spec.trace,
        "cluster": spec.cluster,
        "jobs": len(inputs.jobs),
        "skipped_rows_without_gpus": inputs.skipped,
        "gpus": total_gpus(inputs.cluster),
        "until": spec.until,
        "load": spec.load,
        "window_seconds": spec.window,
        "seeds": [spec.replication_seed(r) for r in range(spec.seeds)],
        "queue_quotas_gpus": inputs.quotas,
        "config": spec.config.model_dump(mode="json"),
        "policies": [
            {
                "policy": s.policy,
                "runs": [m.as_json() for m in s.runs],
                "intervals": {k: _json(v) for k, v in s.measures.items()},
                "wait_by_size": {k: _group_json(v) for k, v in s.sizes.items()},
                "wait_by_queue": {k: _group_json(v) for k, v in s.queues.items()},
            }
            for s in summaries
        ],
    }
    path.write_text(json.dumps(document, indent=2, allow_nan=False) + "\n", encoding="utf-8")


def _json(i: Interval) -> dict[str, float | int | None]:
    return {"mean": i.mean, "half_width_95": i.half, "replications": i.n}


def _group_json(g: GroupSummary) -> dict[str, object]:
    return {"jobs": _json(g.jobs), "wait_mean": _json(g.mean), "wait_p95": _json(g.p95)}


def comparison_table(summaries: Sequence[PolicySummary]) -> str:
    """Each policy's measures as mean ± 95% half-width, as a Markdown table."""
    lines = ["| policy | " + " | ".join(m.title for m in MEASURES) + " |", "|" + "---|" * (len(MEASURES) + 1)]
    for s in summaries:
        cells = [show(s.measures[m.key], m.unit) if m.key in s.measures else "n/a" for m in MEASURES]
        lines.append(f"| {s.policy} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def size_table(summaries: Sequence[PolicySummary]) -> str:
    """Mean and p95 wait per gang size bucket and policy (jobs per bucket: mean over replications)."""
    labels = [label for label, _, _ in SIZE_BUCKETS if any(label in s.sizes for s in summaries)]
    return _group_table(summaries, labels, lambda s: s.sizes, "GPUs")


def queue_table(summaries: Sequence[PolicySummary]) -> str:
    names = sorted({q for s in summaries for q in s.queues})
    return _group_table(summaries, names, lambda s: s.queues, "queue") if names else ""


def _group_table(
    summaries: Sequence[PolicySummary],
    names: Sequence[str],
    pick: Callable[[PolicySummary], dict[str, GroupSummary]],
    what: str,
) -> str:
    lines = [f"| {what} | jobs | policy | wait mean | wait p95 |", "|---|---|---|---|---|"]
    for name in names:
        for s in summaries:
            found: GroupSummary | None = pick(s).get(name)
            if found is None:
                continue
            lines.append(
                f"| {name} | {found.jobs.mean:.0f} | {s.policy} | {show(found.mean, 'seconds')}"
                f" | {show(found.p95, 'seconds')} |"
            )
    return "\n".join(lines)


def verdict_lines(summaries: Sequence[PolicySummary]) -> list[str]:
    """One sentence per measure: the best policy, by how much, or "no difference"."""
    found = verdicts(summaries)
    by_policy = {s.policy: s for s in summaries}
    return [_sentence(m, found[m.key], by_policy) for m in MEASURES if m.key in found]


def _sentence(measure: Measure, v: Verdict, by_policy: dict[str, PolicySummary]) -> str:
    best = by_policy[v.best].measures[measure.key]
    if v.runner_up is None:
        return f"- {measure.title}: {v.best} {show(best, measure.unit)} (one policy)"
    second = by_policy[v.runner_up].measures[measure.key]
    pair = f"{v.best} {show(best, measure.unit)} against {v.runner_up} {show(second, measure.unit)}"
    if best.half is None:
        return f"- {measure.title}: one replication, no interval ({pair}); run --seeds 2 or more"
    paired = ""
    if v.paired is not None:
        paired = f"; paired by seed, {v.best} minus {v.runner_up}: {_signed(v.paired, measure.unit)}"
        if v.paired.half is not None and abs(v.paired.mean) > v.paired.half:
            paired += ", an interval without 0"
    if not v.distinct:
        return f"- {measure.title}: no difference, the 95% intervals overlap ({pair}{paired})"
    gap = abs(v.difference)
    direction = "higher" if v.difference > 0 else "lower"
    amount = f"{gap * 100:.1f} points" if measure.unit == "share" else _plain(gap, measure.unit)
    return f"- {measure.title}: **{v.best}** best, {amount} {direction} than the next ({pair}{paired})"


def _signed(value: Interval, unit: str) -> str:
    """A paired difference: sign, magnitude and half-width (points for shares)."""
    sign = "-" if value.mean < 0 else "+"
    magnitude = Interval(abs(value.mean), value.half, value.n)
    text = show(magnitude, unit)
    if unit == "share":
        text = f"{magnitude.mean * 100:.1f} points" + (
            "" if value.half is None else f" ± {value.half * 100:.1f}"
        )
    return sign + text


def write_report(
    path: Path,
    spec: StudySpec,
    inputs: Inputs,
    results: Sequence[ReplayResult],
    summaries: Sequence[PolicySummary],
    plots: Sequence[Path],
) -> None:
    """``report.md`` beside the plots and ``jobs.csv``."""
    gpus = total_gpus(inputs.cluster)
    span = max((r.end for r in results), default=0.0)
    first = summaries[0].runs[0] if summaries and summaries[0].runs else None
    seeds = [spec.replication_seed(r) for r in range(spec.seeds)]
    carried = sum(1 for j in inputs.jobs if j.trace.carried)
    lines = [
        "# Trace replay",
        "",
        f"- trace: `{spec.trace}`, {len(inputs.jobs)} jobs with GPUs in the first replication"
        + (f" ({carried} running when its window starts, carried in)" if carried else "")
        + (f" ({inputs.skipped} rows without GPUs skipped)" if inputs.skipped else ""),
        f"- cluster: `{spec.cluster}`, {len(inputs.cluster.nodes)} nodes, {gpus} GPUs,"
        f" pods of up to {inputs.shape.gpus_per_node} GPUs, racks of {inputs.shape.nodes_per_rack} nodes",
        f"- replications: {spec.seeds} (seeds {', '.join(map(str, seeds))}); arrival rate x{spec.load:g}"
        + (f"; a window of {duration(spec.window)} of the trace per replication" if spec.window else ""),
        f"- replayed: up to {duration(span)} of trace time"
        + (f" (stopped at {duration(spec.until)})" if spec.until else ""),
        f"- node failures injected: {max((r.node_failures for r in results), default=0)}",
    ]
    if first is not None:
        lines.append(
            f"- time averages (utilisation, fragmented GPUs) cover each replay from its first event to"
            f" its last arrival (seed {first.seed}: {duration(first.averaged_from)} to"
            f" {duration(first.averaged_to)}); the drain after the last arrival is left out"
        )
    if inputs.quotas:
        quota = ", ".join(f"{q} {g}" for q, g in inputs.quotas.items())
        lines.append(
            f"- queue quotas (GPUs by share of GPU time, guaranteed; borrowed and reclaimed): {quota}"
        )
    lines += [
        "",
        "## Policies (mean ± 95% interval over the replications)",
        "",
        comparison_table(summaries),
        "",
        *verdict_lines(summaries),
        "",
        "Wait is first admission minus arrival over the jobs admitted; preferred hit is the share of",
        "jobs with a preferred level placed inside one domain of it; fragmented GPUs are free GPUs on",
        "racks partly used or down (they cannot host a whole-rack gang). Intervals are Student t over",
        "the replications; two policies differ only where their intervals do not overlap.",
        "",
        "## Waits by gang size (GPUs; mean ± 95% interval)",
        "",
        size_table(summaries),
    ]
    queues = queue_table(summaries)
    if queues:
        lines += ["", "## Waits by queue (mean ± 95% interval)", "", queues]
    lines += ["", "## Checks", ""]
    for result in results:
        problems = [*result.lost, *result.overcommits]
        name = f"{result.policy} (seed {result.seed})"
        if problems:
            lines.append(
                f"- {name}: **{len(result.lost)} job(s) lost, {len(result.overcommits)} over-commit(s)**"
            )
            lines.extend(f"  - {p}" for p in problems[:10])
        else:
            lines.append(f"- {name}: no job lost, no node over-committed")
    if plots:
        lines += ["", "## Plots", ""]
        lines += [f"![{p.stem}]({p.name})" for p in plots]
    lines += ["", "Every job of every replay: `jobs.csv`."]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def show(value: Interval, unit: str) -> str:
    """``mean ± half`` in the measure's unit (the mean alone with one replication)."""
    if value.n == 0:
        return "-"
    mean = f"{value.mean:.1%}" if unit == "share" else _plain(value.mean, unit)
    if value.half is None:
        return mean
    half = f"{value.half * 100:.1f}" if unit == "share" else _plain(value.half, unit)
    return f"{mean} ± {half}"


def _plain(value: float, unit: str) -> str:
    return duration(value) if unit == "seconds" else f"{value:.1f}"


def duration(seconds: float | None) -> str:
    """Seconds as the largest unit that keeps the number readable."""
    if seconds is None:
        return "-"
    for unit, size in (("d", 86_400.0), ("h", 3_600.0), ("min", 60.0)):
        if seconds >= size:
            return f"{seconds / size:.1f} {unit}"
    return f"{seconds:.0f} s"
