"""PNG plots of a study (matplotlib, Agg backend: no display needed): GPU utilisation over time
per policy, the CDF of queue waits, and fragmentation over time. Long series are thinned to at
most ``MAX_POINTS`` points per line, taking each bucket's maximum so short peaks stay visible."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # before pyplot: files only, never a window

import matplotlib.pyplot as plt  # the backend is chosen first
import numpy as np
from numpy.typing import NDArray

from toposched.sim.metrics import waits
from toposched.sim.results import ReplayResult

MAX_POINTS = 2_000
HOUR = 3600.0
DAY = 86_400.0

Floats = NDArray[np.float64]


def write_plots(directory: Path, results: Sequence[ReplayResult]) -> list[Path]:
    """The three plots in ``directory``; returns their paths."""
    paths = [directory / "utilisation.png", directory / "wait_cdf.png", directory / "fragmentation.png"]
    _over_time(paths[0], results, "GPU utilisation (%)", _utilisation)
    _over_time(paths[2], results, "free GPUs that cannot host a whole-rack gang", _fragmented)
    _wait_cdf(paths[1], results)
    return paths


def _utilisation(result: ReplayResult) -> Floats:
    return 100.0 * np.asarray(result.series.used_gpus, dtype=float) / max(result.total_gpus, 1)


def _fragmented(result: ReplayResult) -> Floats:
    return np.asarray(result.series.fragmented_gpus, dtype=float)


def _over_time(
    path: Path, results: Sequence[ReplayResult], label: str, values: Callable[[ReplayResult], Floats]
) -> None:
    figure, axes = plt.subplots(figsize=(10, 4.5))
    for result in results:
        x, y = _thin(np.asarray(result.series.time, dtype=float) / DAY, values(result))
        axes.step(x, y, where="post", label=result.policy, linewidth=0.8)
    axes.set_xlabel("trace time (days)")
    axes.set_ylabel(label)
    axes.grid(alpha=0.3)
    axes.legend(loc="upper right", fontsize="small")
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)


def _wait_cdf(path: Path, results: Sequence[ReplayResult]) -> None:
    figure, axes = plt.subplots(figsize=(7, 4.5))
    for result in results:
        waited = np.sort(np.asarray(waits(result), dtype=float))
        if not waited.size:
            continue
        share = np.arange(1, waited.size + 1) / waited.size
        x, y = _thin(np.maximum(waited, 1.0), share)  # 1 s floor: waits of 0 on a log axis
        axes.step(x, y, where="post", label=result.policy, linewidth=0.9)
    axes.set_xscale("log")
    axes.set_xlabel("queue wait (s, log scale; waits under 1 s shown at 1 s)")
    axes.set_ylabel("share of admitted jobs")
    axes.set_ylim(0, 1.01)
    axes.grid(alpha=0.3, which="both")
    axes.legend(loc="lower right", fontsize="small")
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)


def _thin(x: Floats, y: Floats) -> tuple[Floats, Floats]:
    """At most ``MAX_POINTS`` points: each bucket's first x and largest y."""
    if x.size <= MAX_POINTS:
        return x, y
    edges = np.linspace(0, x.size, MAX_POINTS + 1, dtype=int)
    return x[edges[:-1]], np.maximum.reduceat(y, edges[:-1])
