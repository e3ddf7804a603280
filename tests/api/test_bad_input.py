"""Hostile or malformed input never becomes a plain-text 500: bad quantities and shapes are 422
with their field paths, out-of-range ids are 404/422, and an unexpected failure is a JSON 500
with no server detail. Another user's workload id answers exactly like a missing one."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from tests.api.conftest import ADMIN, ALICE, AUTH, BOB, Api, bearer
from tests.api.specs import cluster_yaml, job_yaml
from typer.testing import CliRunner

from toposched.api import Limits, create_app
from toposched.cli.main import app as cli_app
from toposched.intake.cluster import load_cluster
from toposched.scheduler import ManualClock, Scheduler
from toposched.store import SqliteStore

JOB = job_yaml()
GPU_REQUEST = 'nvidia.com/gpu: "4"'
KAI_JOB = """apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: t
  labels: {kai.scheduler/queue: q}
spec:
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      template:
        spec:
          schedulerName: kai-scheduler
          containers: CONTAINERS
"""
TOO_BIG = 2**63


def submit(api: Api, spec: str) -> tuple[int, dict[str, object]]:
    response = api.client.post("/v1/workloads", json={"spec": spec}, headers=bearer(ALICE))
    assert response.headers["content-type"].startswith("application/json"), response.text
    return response.status_code, response.json()


@pytest.mark.parametrize(
    ("spec", "path", "message"),
    [
        (JOB.replace(GPU_REQUEST, "nvidia.com/gpu: .nan"), "requests.nvidia.com/gpu", "invalid quantity"),
        (JOB.replace(GPU_REQUEST, "nvidia.com/gpu: .inf"), "requests.nvidia.com/gpu", "invalid quantity"),
        (JOB.replace(GPU_REQUEST, 'nvidia.com/gpu: "1e30"'), "requests.nvidia.com/gpu", "out of range"),
        (
            JOB.replace(GPU_REQUEST, "nvidia.com/gpu: 10000000000000000000"),
            "requests.nvidia.com/gpu",
            "out of range",
        ),
        (KAI_JOB.replace("CONTAINERS", "7"), "spec.containers", "must be a list"),
        (KAI_JOB.replace("CONTAINERS", "[7]"), "spec.containers[0]", "must be a mapping"),
        (KAI_JOB.replace("CONTAINERS", "[{name: a, resources: 7}]"), "[0].resources", "must be a mapping"),
        (
            KAI_JOB.replace("CONTAINERS", "[{name: a, resources: {requests: [1]}}]"),
            "[0].resources.requests",
            "must be a mapping",
        ),
    ],
    ids=["nan", "inf", "1e30-gpus", "gpus-beyond-int64", "containers", "container", "resources", "requests"],
)
def test_bad_quantities_and_shapes_are_422_naming_the_field(
    api: Api, spec: str, path: str, message: str
) -> None:
    status, body = submit(api, spec)
    assert status == 422, body
    problems = body["problems"]
    assert isinstance(problems, list)
    assert any(p["path"].endswith(path) and message in p["message"] for p in problems), problems
    assert api.scheduler.list() == []


def test_an_unexpected_failure_is_a_json_500_without_detail(
    api: Api, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def broken(*args: object, **kwargs: object) -> object:
        raise RuntimeError("secret internal detail")

    monkeypatch.setattr(api.scheduler, "prepare", broken)
    with caplog.at_level(logging.ERROR, logger="toposched.api"):
        status, body = submit(api, JOB)
    assert status == 500
    assert body["error"] == "internal"
    assert "secret" not in str(body) and "Traceback" not in str(body)
    logged = [r for r in caplog.records if r.exc_info is not None]
    assert len(logged) == 1 and "secret internal detail" in str(logged[0].exc_info[1])


@pytest.fixture
def on_sqlite(tmp_path: Path) -> Iterator[Api]:
    store = SqliteStore(tmp_path / "s.db")
    scheduler = Scheduler(store, ManualClock(1000.0))
    scheduler.import_cluster(load_cluster(cluster_yaml()))
    app = create_app(scheduler, AUTH, limits=Limits(), run_loop=False)
    with TestClient(app, raise_server_exceptions=False) as client:
        yield Api(client, scheduler, store)  # type: ignore[arg-type]
    store.close()


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("GET", f"/v1/workloads/{TOO_BIG}", None),
        ("DELETE", f"/v1/workloads/{TOO_BIG}", None),
        ("POST", f"/v1/workloads/{TOO_BIG}/finish", None),
        ("PUT", f"/v1/workloads/{TOO_BIG}/pods/p0/status", {"status": "Running"}),
        ("GET", f"/v1/events?workload={TOO_BIG}", None),
        ("GET", f"/v1/events?since={TOO_BIG}", None),
        ("GET", f"/v1/events?limit={TOO_BIG}", None),
        ("GET", f"/v1/workloads?limit={TOO_BIG}", None),
    ],
)
def test_ids_and_query_values_beyond_int64_are_not_500(
    on_sqlite: Api, method: str, path: str, body: object
) -> None:
    response = on_sqlite.client.request(method, path, json=body, headers=bearer(ADMIN))
    assert response.status_code in (404, 422), response.text
    assert response.headers["content-type"].startswith("application/json")


def test_another_users_workload_answers_like_a_missing_one(api: Api) -> None:
    status, body = submit(api, JOB)
    assert status == 201
    theirs = body["id"]
    missing = 999
    for method, suffix in (("GET", ""), ("DELETE", ""), ("POST", "/finish")):
        other = api.client.request(method, f"/v1/workloads/{theirs}{suffix}", headers=bearer(BOB))
        absent = api.client.request(method, f"/v1/workloads/{missing}{suffix}", headers=bearer(BOB))
        assert other.status_code == absent.status_code == 404
        assert other.json() == {**absent.json(), "message": other.json()["message"], "name": str(theirs)}
        assert other.json()["message"] == absent.json()["message"].replace(str(missing), str(theirs))
    events = api.client.get(f"/v1/events?workload={theirs}", headers=bearer(BOB))
    assert events.status_code == 404
    assert api.scheduler.get(int(str(theirs))).state == "pending"


def test_submitting_a_binary_file_exits_2_with_a_clear_message(tmp_path: Path) -> None:
    binary = tmp_path / "image.bin"
    binary.write_bytes(bytes(range(256)) * 4)
    result = CliRunner().invoke(cli_app, ["submit", str(binary), "--token", ALICE])
    assert result.exit_code == 2, result.output
    assert "binary" in result.output and "Traceback" not in result.output
