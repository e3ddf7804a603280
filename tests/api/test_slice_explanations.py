"""A sliced job refused on a 4,608-node cluster is explained the same way by ``toposched explain``
and by ``GET /v1/workloads/{id}/explanation`` (issue 27, item 7): the candidates count what one
arrangement of all the slice layers takes (never more than asked), name the block left short of
a rack, and both carry the suggestion of the largest size that places.

The cluster: 2 zones x 4 blocks x 32 racks x 18 nodes, a seeded third of the nodes busy (the
explanation bench's cluster). ``examples/kueue/job-multilayer.yaml`` asks for 128 pods in one
zone, 64 per block, 16 per rack: zone z1 has ten racks with 16 free nodes, but only one block
with four of them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from tests.api.conftest import AUTH, BOB, bearer
from typer.testing import CliRunner

from toposched.api import Limits, create_app
from toposched.cli.main import app as cli
from toposched.intake.cluster import load_cluster
from toposched.samples.generate import busy_cluster_manifest
from toposched.scheduler import Scheduler, SchedulerConfig, SystemClock
from toposched.store import MemoryStore

JOB = Path(__file__).resolve().parents[2] / "examples" / "kueue" / "job-multilayer.yaml"
RACK = "cloud.provider.com/topology-rack"
BLOCK = "cloud.provider.com/topology-block"


@pytest.fixture(scope="module")
def cluster_text() -> str:
    return json.dumps(busy_cluster_manifest(32, 0.34, 1))


@pytest.fixture(scope="module")
def cli_answer(cluster_text: str, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    path = tmp_path_factory.mktemp("large") / "cluster.json"
    path.write_text(cluster_text, encoding="utf-8")
    run = CliRunner().invoke(cli, ["explain", str(JOB), "--cluster", str(path), "-o", "json"])
    assert run.exit_code == 3, run.stdout
    document: dict[str, Any] = json.loads(run.stdout)
    return document


@pytest.fixture(scope="module")
def service_answer(cluster_text: str) -> dict[str, Any]:
    # The system clock, as a running service has: the explanation's time bound is real.
    scheduler = Scheduler(MemoryStore(), SystemClock(), SchedulerConfig())
    scheduler.import_cluster(load_cluster(cluster_text))
    with TestClient(create_app(scheduler, AUTH, limits=Limits(), run_loop=False)) as client:
        posted = client.post(
            "/v1/workloads", json={"spec": JOB.read_text(encoding="utf-8")}, headers=bearer(BOB)
        )
        scheduler.cycle()
        got = client.get(f"/v1/workloads/{posted.json()['id']}/explanation", headers=bearer(BOB))
    assert got.status_code == 200, got.text
    body: dict[str, Any] = got.json()
    return body


def _checked(explanation: dict[str, Any]) -> None:
    (best, *rest) = explanation["candidates"]
    for candidate in (best, *rest):
        assert candidate["fit"] <= candidate["needed"] == 128
        assert all(layer["fit"] <= layer["needed"] for layer in candidate["layers"])
    assert best["domain"] == ["z1"] and best["fit"] == 112
    assert best["layers"] == [
        {"level": BLOCK, "fit": 1, "needed": 2},
        {"level": RACK, "fit": 7, "needed": 8},
    ]
    assert best["shortSlices"] == [{"domain": ["z1", "z1-b2"], "held": 3, "full": 4}]
    assert "short of 1 " in best["text"] and "z1/z1-b2 holds 3 of 4" in best["text"]
    smaller = [s for s in explanation["suggestions"] if s["kind"] == "smaller"]
    assert [s["text"] for s in smaller] == ["64 of 128 pods of main fit now (the largest size that places)"]
    assert explanation["untried"] == []


def test_the_cli_names_the_block_short_of_a_rack_and_what_places(cli_answer: dict[str, Any]) -> None:
    _checked(cli_answer["explanation"])


def test_the_service_explains_it_as_the_cli_does(
    service_answer: dict[str, Any], cli_answer: dict[str, Any]
) -> None:
    _checked(service_answer)
    assert service_answer["candidates"] == cli_answer["explanation"]["candidates"]
    assert service_answer["suggestions"] == cli_answer["explanation"]["suggestions"]


def test_the_table_prints_the_same_counts(cluster_text: str, tmp_path: Path) -> None:
    path = tmp_path / "cluster.json"
    path.write_text(cluster_text, encoding="utf-8")
    run = CliRunner().invoke(cli, ["explain", str(JOB), "--cluster", str(path)])
    assert run.exit_code == 3
    assert (
        "z1: 112 of 128 pod(s) fit; slices: block 1/2, rack 7/8; "
        "short of 1 rack slice(s) of 16 pod(s): z1/z1-b2 holds 3 of 4"
    ) in run.stdout
    assert "✓ 64 of 128 pods of main fit now" in run.stdout
