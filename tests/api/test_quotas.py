"""Per-user quotas on pending work (issue 22, item 6): a submission past its owner's quota is a
429 naming the figure and how to raise it; admins give users quotas of their own; users read
their own quota and pending work."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient
from tests.api.conftest import ADMIN, ALICE, AUTH, BOB, bearer
from tests.api.specs import cluster_yaml, job_yaml

from toposched.api import Limits, create_app
from toposched.intake.cluster import load_cluster
from toposched.model import Quota
from toposched.scheduler import ManualClock, Scheduler, SchedulerConfig
from toposched.store import MemoryStore

DEFAULT = Quota(workloads=2, pods=12, spec_bytes=64 * 1024)


@pytest.fixture
def client() -> Iterator[TestClient]:
    scheduler = Scheduler(MemoryStore(), ManualClock(1000.0), SchedulerConfig(quota=DEFAULT))
    scheduler.import_cluster(load_cluster(cluster_yaml()))
    app = create_app(scheduler, AUTH, limits=Limits(max_body_bytes=256 * 1024), run_loop=False)
    with TestClient(app, raise_server_exceptions=False) as test_client:
        yield test_client


def submit(client: TestClient, token: str, name: str, pods: int = 1) -> int:
    spec = job_yaml(name, pods=pods, gpus=64)  # no node has 64 GPUs: it stays pending
    response = client.post("/v1/workloads", json={"spec": spec}, headers=bearer(token))
    return response.status_code


def test_a_submission_past_the_default_quota_is_refused_with_the_limit_and_the_fix(
    client: TestClient,
) -> None:
    assert [submit(client, ALICE, f"w{i}") for i in range(2)] == [201, 201]
    refused = client.post("/v1/workloads", json={"spec": job_yaml("w2", gpus=64)}, headers=bearer(ALICE))
    assert refused.status_code == 429, refused.text
    body = refused.json()
    assert body["error"] == "quota_exceeded" and body["limit"] == "quota.workloads"
    assert "3 pending workloads; the quota is 2" in body["message"]
    assert "PUT /v1/quotas/alice" in body["message"] and "--quota-workloads" in body["message"]
    assert "Retry-After" not in refused.headers  # it depends on the user's own work, not on time
    assert submit(client, BOB, "theirs") == 201  # another user's work is another quota
    listed = client.get("/v1/workloads", headers=bearer(ALICE)).json()
    assert [w["name"] for w in listed] == ["w0", "w1"]
    client.delete(f"/v1/workloads/{listed[0]['id']}", headers=bearer(ALICE))
    assert submit(client, ALICE, "w2") == 201  # a cancelled workload no longer counts


def test_pods_and_spec_bytes_count_too(client: TestClient) -> None:
    assert submit(client, ALICE, "big", pods=8) == 201
    refused = client.post(
        "/v1/workloads", json={"spec": job_yaml("more", pods=5, gpus=64)}, headers=bearer(ALICE)
    )
    assert refused.status_code == 429 and refused.json()["limit"] == "quota.pods"
    assert "13 pods in pending workloads; the quota is 12" in refused.json()["message"]
    client.put("/v1/quotas/bob", json={"workloads": 9, "pods": 99, "specBytes": 800}, headers=bearer(ADMIN))
    assert submit(client, BOB, "b0") == 201  # about 500 bytes stored: a second passes 800
    bytes_over = client.post("/v1/workloads", json={"spec": job_yaml("b1", gpus=64)}, headers=bearer(BOB))
    assert bytes_over.status_code == 429 and bytes_over.json()["limit"] == "quota.specBytes"


def test_admins_give_users_quotas_of_their_own(client: TestClient) -> None:
    for i in range(2):
        submit(client, ALICE, f"w{i}")
    raised = client.put(
        "/v1/quotas/alice", json={"workloads": 3, "pods": 12, "specBytes": 65536}, headers=bearer(ADMIN)
    )
    assert raised.status_code == 200, raised.text
    assert raised.json() == {
        "user": "alice",
        "quota": {"workloads": 3, "pods": 12, "specBytes": 65536},
        "own": True,
        "pending": {"workloads": 2, "pods": 2, "specBytes": raised.json()["pending"]["specBytes"]},
    }
    assert submit(client, ALICE, "w2") == 201
    assert submit(client, ALICE, "w3") == 429
    mine = client.get("/v1/quotas/alice", headers=bearer(ALICE)).json()
    assert mine["quota"]["workloads"] == 3 and mine["pending"]["workloads"] == 3
    everyone = client.get("/v1/quotas", headers=bearer(ADMIN)).json()
    assert everyone == {
        "default": {"workloads": 2, "pods": 12, "specBytes": 65536},
        "users": {"alice": {"workloads": 3, "pods": 12, "specBytes": 65536}},
    }
    assert client.delete("/v1/quotas/alice", headers=bearer(ADMIN)).json()["own"] is False
    assert client.delete("/v1/quotas/alice", headers=bearer(ADMIN)).status_code == 404


@pytest.mark.parametrize(
    ("token", "method", "path", "status"),
    [
        (BOB, "GET", "/v1/quotas/alice", 403),
        (ALICE, "GET", "/v1/quotas", 403),
        (ALICE, "PUT", "/v1/quotas/alice", 403),
        (ALICE, "DELETE", "/v1/quotas/alice", 403),
        (ADMIN, "GET", "/v1/quotas/alice", 200),
        (BOB, "GET", "/v1/quotas/bob", 200),
    ],
    ids=["other-reads", "user-lists", "user-raises-own", "user-drops-own", "admin-reads", "own-read"],
)
def test_who_may_read_and_set_quotas(
    client: TestClient, token: str, method: str, path: str, status: int
) -> None:
    body = {"workloads": 9, "pods": 9, "specBytes": 9} if method == "PUT" else None
    assert client.request(method, path, json=body, headers=bearer(token)).status_code == status


@pytest.mark.parametrize(
    "body",
    [
        {"workloads": -1, "pods": 1, "specBytes": 1},
        {"workloads": 1, "pods": 1},
        {"workloads": 1, "pods": 1, "specBytes": 10**16},
        {"workloads": 1, "pods": 1, "specBytes": 1, "cpu": 4},
        {"workloads": "many", "pods": 1, "specBytes": 1},
    ],
    ids=["negative", "missing", "too-large", "unknown-field", "not-a-number"],
)
def test_a_bad_quota_is_422_naming_the_field(client: TestClient, body: dict[str, object]) -> None:
    answer = client.put("/v1/quotas/alice", json=body, headers=bearer(ADMIN))
    assert answer.status_code == 422, answer.text
    assert answer.json()["problems"][0]["path"]
    assert client.get("/v1/quotas", headers=bearer(ADMIN)).json()["users"] == {}
