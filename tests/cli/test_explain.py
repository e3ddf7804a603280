"""``toposched explain`` on the bundled sample: the too-big job explained, a fitting job placed."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from .conftest import Invoke


def test_a_job_too_big_for_a_rack_is_explained(
    invoke: Invoke, sample_cluster: Path, sample_job: Callable[[str], Path]
) -> None:
    run = invoke("explain", sample_job("4-too-big-for-a-rack.yaml"), "--cluster", sample_cluster)
    assert run.exit_code == 3
    assert "allows to fit only 18 out of 20 pod(s)" in run.stdout
    assert "18 of 20 pod(s) fit; short of nvidia.com/gpu 8" in run.stdout
    assert "1 node(s) are cordoned" in run.stdout
    assert "prefer rack instead of requiring it" in run.stdout


def test_json_carries_the_explanation_beside_the_refusal(
    invoke: Invoke, sample_cluster: Path, sample_job: Callable[[str], Path]
) -> None:
    run = invoke("explain", sample_job("4-too-big-for-a-rack.yaml"), "-c", sample_cluster, "-o", "json")
    assert run.exit_code == 3
    document = json.loads(run.stdout)
    explanation = document["explanation"]
    assert explanation["group"] == "main" and explanation["level"] == "cloud.provider.com/topology-rack"
    assert explanation["candidates"][0]["fit"] == 18 and explanation["candidates"][0]["needed"] == 20
    assert {s["kind"] for s in explanation["suggestions"]} >= {"preferredLevel", "smaller"}


def test_a_job_that_fits_is_placed_as_place_shows_it(
    invoke: Invoke, sample_cluster: Path, sample_job: Callable[[str], Path]
) -> None:
    run = invoke("explain", sample_job("1-rack-required.yaml"), "--cluster", sample_cluster)
    assert run.exit_code == 0
    placed = invoke("place", sample_job("1-rack-required.yaml"), "--cluster", sample_cluster)
    assert run.stdout == placed.stdout
