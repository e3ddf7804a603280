"""PNG plots of a study (matplotlib, Agg backend: no display needed): GPU utilisation and
fragmentation over time per policy (the first replication), and the CDF of queue waits (every
replication pooled).

Long series are thinned by time: the replay's span is cut into ``BUCKETS`` equal intervals and
each is drawn at the time-weighted mean of the step function over it, so every series reaches
the end of its replay and short peaks are averaged, not picked. Each policy has its own line
style and marker, so identical curves stay distinguishable; a dotted line marks the last
arrival, where the report's time averages stop.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import cycle
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # before pyplot: files only, never a window

import matplotlib.pyplot as plt  # the backend is chosen first
import numpy as np
from matplotlib.axes import Axes
from numpy.typing import NDArray

from toposched.sim.metrics import waits
from toposched.sim.results import ReplayResult

BUCKETS = 500
MAX_CDF_POINTS = 2_000
HOUR = 3600.0
DAY = 86_400.0
STYLES = ("-", "--", "-.", ":")
MARKERS = ("o", "s", "^", "D", "v", "x", "P", "*")

Floats = NDArray[np.float64]


def write_plots(directory: Path, results: Sequence[ReplayResult]) -> list[Path]:
    """The three plots in ``directory``; returns their paths."""
    first = _first_replication(results)
    paths = [directory / "utilisation.png", directory / "wait_cdf.png", directory / "fragmentation.png"]
    plot_over_time(paths[0], first, "GPU utilisation", "GPUs in use (%)", _utilisation)
    plot_over_time(paths[2], first, "Fragmentation", "free GPUs on partly used racks (GPUs)", _fragmented)
    _wait_cdf(paths[1], results)
    return paths


def _first_replication(results: Sequence[ReplayResult]) -> list[ReplayResult]:
    seed = min((r.seed for r in results), default=0)
    return [r for r in results if r.seed == seed]


def _utilisation(result: ReplayResult) -> Floats:
    return 100.0 * np.asarray(result.series.used_gpus, dtype=float) / max(result.total_gpus, 1)


def _fragmented(result: ReplayResult) -> Floats:
    return np.asarray(result.series.fragmented_gpus, dtype=float)


def thin_by_time(times: Floats, values: Floats, end: float, buckets: int = BUCKETS) -> tuple[Floats, Floats]:
    """The step function ``values[i]`` from ``times[i]`` to the next time (the last until
    ``end``) as ``buckets`` equal time intervals from the first time to ``end``: each interval's
    start and the function's time-weighted mean over it, then a last point at ``end``."""
    if times.size == 0:
        return times, values
    start, end = float(times[0]), max(float(end), float(times[-1]))
    if end <= start:
        return np.asarray([start], dtype=float), values[-1:].astype(float)
    knots = np.append(times, end)
    integral = np.concatenate(([0.0], np.cumsum(values * np.diff(knots))))  # up to each knot

    def area(x: Floats) -> Floats:
        at = np.clip(np.searchsorted(knots, x, side="right") - 1, 0, values.size - 1)
        result: Floats = integral[at] + values[at] * (x - knots[at])
        return result

    edges = np.linspace(start, end, buckets + 1)
    means = np.diff(area(edges)) / np.diff(edges)
    return np.append(edges[:-1], end), np.append(means, means[-1])


def plot_over_time(
    path: Path,
    results: Sequence[ReplayResult],
    title: str,
    label: str,
    values: Callable[[ReplayResult], Floats],
) -> tuple[float, list[float]]:
    """One line per replay; returns the x-axis end and each line's last x, in seconds."""
    figure, axes = plt.subplots(figsize=(10, 4.5))
    span = max((r.end for r in results), default=0.0)
    unit, scale = ("days", DAY) if span > 2 * DAY else ("hours", HOUR)
    ends: list[float] = []
    for result, style, marker in zip(results, cycle(STYLES), cycle(MARKERS), strict=False):
        x, y = thin_by_time(np.asarray(result.series.time, dtype=float), values(result), result.end)
        ends.append(float(x[-1]) if x.size else 0.0)
        axes.step(
            x / scale,
            y,
            where="post",
            label=result.policy,
            linewidth=1.0,
            linestyle=style,
            marker=marker,
            markersize=3,
            markevery=max(1, x.size // 12),
        )
    _last_arrival(axes, results, scale)
    seed = results[0].seed if results else 0
    axes.set_title(f"{title} over trace time (seed {seed}; mean per {_bucket_text(span)})")
    axes.set_xlabel(f"trace time ({unit})")
    axes.set_ylabel(label)
    axes.set_xlim(0, max(span / scale, 1e-9))
    axes.grid(alpha=0.3)
    axes.legend(loc="upper right", fontsize="small")
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    axis_end = float(axes.get_xlim()[1]) * scale
    plt.close(figure)
    return axis_end, ends


def _last_arrival(axes: Axes, results: Sequence[ReplayResult], scale: float) -> None:
    last = max((r.last_arrival for r in results), default=0.0)
    if last > 0:
        axes.axvline(last / scale, color="grey", linestyle=":", linewidth=1.0, label="last arrival")


def _bucket_text(span: float) -> str:
    width = span / BUCKETS
    return f"{width / 60:.1f} min" if width >= 60 else f"{width:.1f} s"


def _wait_cdf(path: Path, results: Sequence[ReplayResult]) -> None:
    figure, axes = plt.subplots(figsize=(7, 4.5))
    pooled: dict[str, list[float]] = {}
    for result in results:
        pooled.setdefault(result.policy, []).extend(waits(result))
    for (policy, values), style, marker in zip(pooled.items(), cycle(STYLES), cycle(MARKERS), strict=False):
        waited = np.sort(np.asarray(values, dtype=float))
        if not waited.size:
            continue
        share = np.arange(1, waited.size + 1) / waited.size
        keep = np.unique(np.linspace(0, waited.size - 1, min(waited.size, MAX_CDF_POINTS)).astype(int))
        axes.step(
            np.maximum(waited[keep], 1.0),  # 1 s floor: waits of 0 on a log axis
            share[keep],
            where="post",
            label=policy,
            linewidth=1.0,
            linestyle=style,
            marker=marker,
            markersize=3,
            markevery=max(1, keep.size // 10),
        )
    replications = len({r.seed for r in results})
    axes.set_title(f"Queue wait CDF ({replications} replication(s) pooled)")
    axes.set_xscale("log")
    axes.set_xlabel("queue wait (s, log scale; waits under 1 s shown at 1 s)")
    axes.set_ylabel("share of admitted jobs")
    axes.set_ylim(0, 1.01)
    axes.grid(alpha=0.3, which="both")
    axes.legend(loc="lower right", fontsize="small")
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)
