"""``POST /v1/workloads`` takes the job file itself as the body (``application/yaml``,
``application/x-yaml``, ``text/yaml``), with ``priority``, ``topology``, ``kind`` and ``pool`` in the query,
and answers it as the JSON envelope ``{"spec": ...}`` is answered, through either route."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from fastapi.testclient import TestClient
from tests.api.conftest import ADMIN, ALICE, AUTH, bearer
from tests.api.specs import cluster_yaml, job_yaml

from toposched.api import Limits, create_app
from toposched.intake.cluster import load_cluster
from toposched.scheduler import ManualClock, Scheduler
from toposched.store import MemoryStore

LIMIT = 64 * 1024
EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "osmo"


@pytest.fixture(params=[True, False], ids=["hot-routes", "fastapi-routes"])
def client(request: pytest.FixtureRequest) -> Iterator[TestClient]:
    scheduler = Scheduler(MemoryStore(), ManualClock(1000.0))
    scheduler.import_cluster(load_cluster(cluster_yaml()))
    limits = Limits(max_body_bytes=LIMIT, max_list=50)
    app = create_app(scheduler, AUTH, limits=limits, run_loop=False, hot_routes=request.param)
    with TestClient(app, raise_server_exceptions=False) as test_client:
        yield test_client


def _as(content_type: str) -> dict[str, str]:
    return {**bearer(ALICE), "Content-Type": content_type}


def _stored(client: TestClient, workload_id: int) -> dict[str, object]:
    record = client.get(f"/v1/workloads/{workload_id}", headers=bearer(ALICE)).json()
    return {k: record[k] for k in ("name", "kind", "priority", "topology", "pods", "spec", "state")}


@pytest.mark.parametrize(
    "content_type", ["application/yaml", "application/x-yaml", "text/yaml; charset=utf-8"]
)
def test_the_job_file_as_body_is_stored_as_the_json_envelope_would_be(
    client: TestClient, content_type: str
) -> None:
    spec = job_yaml("train", pods=2, gpus=4)

    sent = client.post("/v1/workloads?priority=7&topology=default", content=spec, headers=_as(content_type))
    enveloped = client.post(
        "/v1/workloads", json={"spec": spec, "priority": 7, "topology": "default"}, headers=bearer(ALICE)
    )

    assert sent.status_code == 201, sent.text
    assert enveloped.status_code == 201, enveloped.text
    assert _stored(client, sent.json()["id"]) == _stored(client, enveloped.json()["id"])
    assert sent.json()["priority"] == 7 and sent.json()["pods"] == 2


def test_a_json_job_file_is_accepted_as_yaml(client: TestClient) -> None:
    as_json = json.dumps(yaml.safe_load(job_yaml("json-train")))

    response = client.post("/v1/workloads?kind=kueue", content=as_json, headers=_as("application/yaml"))

    assert response.status_code == 201, response.text
    assert response.json()["name"] == "json-train"


@pytest.mark.parametrize(
    ("query", "content_type", "body", "problem"),
    [
        ("", "application/x-www-form-urlencoded", job_yaml(), "Content-Type"),
        ("", "text/plain", job_yaml(), "Content-Type"),
        ("", "application/yaml", "  \n", "body"),
        ("", "application/yaml", b"kind: \xff\xfe", "body"),
        ("?priority=high", "application/yaml", job_yaml(), "priority"),
        ("?priority=1&priority=2", "application/yaml", job_yaml(), "priority"),
        ("?queue=a", "application/yaml", job_yaml(), "queue"),
        ("", "application/yaml", "kind: [unclosed\n", "spec:2:1"),
        ("?priority=99999999999", "application/yaml", job_yaml(), "body.priority"),
    ],
    ids=[
        "form-type",
        "text-plain",
        "empty",
        "not-utf8",
        "priority-not-integer",
        "priority-twice",
        "unknown-parameter",
        "yaml-syntax",
        "priority-out-of-range",
    ],
)
def test_a_bad_submission_is_a_422_naming_what_to_fix(
    client: TestClient, query: str, content_type: str, body: str | bytes, problem: str
) -> None:
    response = client.post(f"/v1/workloads{query}", content=body, headers=_as(content_type))

    assert response.status_code == 422, response.text
    problems = response.json()["problems"]
    assert [p["path"] for p in problems] == [problem]
    assert all(p["hint"] for p in problems)
    assert client.get("/v1/workloads", headers=bearer(ALICE)).json() == []


def test_the_form_type_is_told_how_to_send_the_file(client: TestClient) -> None:
    response = client.post(
        "/v1/workloads", content=job_yaml(), headers=_as("application/x-www-form-urlencoded")
    )

    assert "Content-Type: application/yaml" in response.json()["problems"][0]["hint"]


def test_an_oversized_job_file_is_refused_before_it_is_read_further(client: TestClient) -> None:
    body = job_yaml() + "#" * LIMIT

    response = client.post("/v1/workloads", content=body, headers=_as("application/yaml"))

    assert response.status_code == 413
    assert response.json()["error"] == "too_large"
    assert client.get("/v1/workloads", headers=bearer(ALICE)).json() == []


def test_a_job_file_just_within_the_limit_is_not_refused_once_enveloped(client: TestClient) -> None:
    # Escaping makes the JSON envelope longer than the file: the limit is the file's.
    spec = job_yaml()
    body = spec + '# "quoted"\n' * ((LIMIT - len(spec)) // 11)
    assert len(body.encode()) <= LIMIT < len(json.dumps({"spec": body}))

    response = client.post("/v1/workloads", content=body, headers=_as("application/yaml"))

    assert response.status_code == 201, response.text


def test_without_a_token_the_job_file_gets_401(client: TestClient) -> None:
    response = client.post("/v1/workloads", content=job_yaml(), headers={"Content-Type": "application/yaml"})

    assert response.status_code == 401


def test_the_pool_is_taken_from_the_query_or_the_envelope(client: TestClient) -> None:
    workflow = (EXAMPLES / "3-multiple-nvl72-same-zone.workflow.yaml").read_text(encoding="utf-8")
    pool = yaml.safe_load((EXAMPLES / "3-multiple-nvl72-same-zone.pool.yaml").read_text(encoding="utf-8"))
    keys = {"topology_keys": pool["topology_keys"]}
    for name in ("first", "second"):
        stored = client.put(f"/v1/pools/{name}", json=keys, headers=bearer(ADMIN))
        assert stored.status_code == 200, stored.text

    sent = client.post("/v1/workloads?pool=second", content=workflow, headers=_as("application/yaml"))
    enveloped = client.post("/v1/workloads", json={"spec": workflow, "pool": "second"}, headers=bearer(ALICE))
    unnamed = client.post("/v1/workloads", json={"spec": workflow}, headers=bearer(ALICE))

    assert (sent.status_code, enveloped.status_code) == (201, 201), (sent.text, enveloped.text)
    assert sent.json()["pool"] == enveloped.json()["pool"] == "second"
    assert unnamed.status_code == 422  # two pools, and the workflow names none
