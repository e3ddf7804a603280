"""The plots: thinned by time, every line to the end of its replay."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from toposched.sim.config import SimConfig
from toposched.sim.plots import BUCKETS, _utilisation, plot_over_time, thin_by_time
from toposched.sim.study import StudySpec, replay_policy

from .conftest import write_trace


def test_thinning_by_time_draws_each_interval_at_its_time_weighted_mean() -> None:
    times, values = np.asarray([0.0, 10.0]), np.asarray([2.0, 4.0])
    x, y = thin_by_time(times, values, end=20.0, buckets=3)
    assert x.tolist() == pytest.approx([0.0, 20 / 3, 40 / 3, 20.0])
    # [0, 6.67]: 2; [6.67, 13.33]: half at 2, half at 4 = 3; [13.33, 20]: 4; the end repeats it.
    assert y.tolist() == pytest.approx([2.0, 3.0, 4.0, 4.0])


def test_the_plots_reach_the_end_of_the_replay(tmp_path: Path, config: SimConfig) -> None:
    """The plots used to thin by sample index and end at the last bucket's first sample (13.2
    days replayed, the axis ended at 7.5); now every line and the axis reach the replay's end."""
    rows = [(f"j{i}", 60 * i, 30 + (i % 7) * 5, 1, 8) for i in range(1100)]
    rows.append(("last", 60 * 1100, 20_000, 1, 8))  # a long drain after the last arrival
    spec = StudySpec(str(write_trace(tmp_path / "many.csv", rows)), "dgx:racks=2,nodes_per_rack=2", config)
    results = [replay_policy(spec, "mixed"), replay_policy(spec, "spread")]
    assert len(results[0].series.time) > 2 * BUCKETS
    axis_end, ends = plot_over_time(
        tmp_path / "u.png", results, "GPU utilisation", "GPUs in use (%)", _utilisation
    )
    assert ends == [r.end for r in results]
    assert axis_end >= max(r.end for r in results) * (1 - 1e-9)
    assert max(r.end for r in results) > max(r.last_arrival for r in results)  # the drain is drawn too
