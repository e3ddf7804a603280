"""``/v1/tokens`` (admin): a made token works at once and after a restart, a revoked one is
refused (401) from the very next request, through the hot routes and the FastAPI ones; a user
cannot make, list or revoke tokens; no answer but the one making it carries a secret."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient
from tests.api.conftest import ADMIN, ALICE, AUTH, bearer
from tests.api.specs import cluster_yaml, job_yaml

from toposched.api import Limits, create_app
from toposched.intake.cluster import load_cluster
from toposched.scheduler import ManualClock, Scheduler
from toposched.store import MemoryStore, Store


def serve(store: Store, *, hot_routes: bool = True) -> TestClient:
    scheduler = Scheduler(store, ManualClock(1000.0))
    app = create_app(scheduler, AUTH, limits=Limits(), run_loop=False, hot_routes=hot_routes)
    return TestClient(app, raise_server_exceptions=False)


@pytest.fixture
def store() -> MemoryStore:
    store = MemoryStore()
    Scheduler(store, ManualClock(1000.0)).import_cluster(load_cluster(cluster_yaml()))
    return store


@pytest.fixture(params=[True, False], ids=["hot-routes", "fastapi-routes"])
def client(request: pytest.FixtureRequest, store: MemoryStore) -> Iterator[TestClient]:
    with serve(store, hot_routes=request.param) as test_client:
        yield test_client


def make(client: TestClient, name: str = "ci-bot", user: str = "ci", role: str = "user") -> str:
    response = client.post(
        "/v1/tokens", json={"name": name, "user": user, "role": role}, headers=bearer(ADMIN)
    )
    assert response.status_code == 201, response.text
    body = response.json()
    assert (body["name"], body["user"], body["role"], body["source"], body["createdBy"]) == (
        name,
        user,
        role,
        "store",
        "root",
    )
    secret: str = body["token"]
    return secret


def test_a_made_token_works_at_once_and_a_revoked_one_is_refused_at_once(client: TestClient) -> None:
    secret = make(client)
    submitted = client.post("/v1/workloads", json={"spec": job_yaml()}, headers=bearer(secret))
    assert submitted.status_code == 201, submitted.text
    assert submitted.json()["owner"] == "ci"
    workload = f"/v1/workloads/{submitted.json()['id']}"
    assert client.get(workload, headers=bearer(secret)).status_code == 200

    revoked = client.delete("/v1/tokens/ci-bot", headers=bearer(ADMIN))

    assert revoked.status_code == 200, revoked.text
    assert revoked.json()["name"] == "ci-bot" and "token" not in revoked.json()
    for method, path in (
        ("GET", workload),
        ("GET", "/v1/workloads"),
        ("DELETE", workload),
        ("GET", "/v1/nodes"),
    ):
        assert client.request(method, path, headers=bearer(secret)).status_code == 401, (method, path)
    yaml_body = {**bearer(secret), "Content-Type": "application/yaml"}
    assert client.post("/v1/workloads", content=job_yaml(), headers=yaml_body).status_code == 401


def test_an_admin_token_made_here_can_make_tokens(client: TestClient) -> None:
    admin = make(client, "second-admin", "ops", "admin")

    response = client.post("/v1/tokens", json={"name": "by-ops", "user": "x"}, headers=bearer(admin))

    assert response.status_code == 201 and response.json()["createdBy"] == "ops"


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("POST", "/v1/tokens", {"name": "mine", "user": "alice", "role": "admin"}),
        ("GET", "/v1/tokens", None),
        ("DELETE", "/v1/tokens/ci-bot", None),
    ],
    ids=["create", "list", "revoke"],
)
def test_a_user_cannot_manage_tokens(client: TestClient, method: str, path: str, body: object) -> None:
    make(client)

    response = client.request(method, path, json=body, headers=bearer(ALICE))

    assert response.status_code == 403, response.text
    assert [t["name"] for t in client.get("/v1/tokens", headers=bearer(ADMIN)).json()] == [
        "tokens[0]",
        "tokens[1]",
        "tokens[2]",
        "ci-bot",
    ]


def test_the_list_carries_no_secret_and_no_digest(client: TestClient) -> None:
    secret = make(client)

    response = client.get("/v1/tokens", headers=bearer(ADMIN))

    assert response.status_code == 200
    text = response.text
    for hidden in (secret, hashlib.sha256(secret.encode()).hexdigest(), ADMIN, ALICE):
        assert hidden not in text
    assert [(t["name"], t["user"], t["role"], t["source"]) for t in response.json()] == [
        ("tokens[0]", "root", "admin", "file"),
        ("tokens[1]", "alice", "user", "file"),
        ("tokens[2]", "bob", "user", "file"),
        ("ci-bot", "ci", "user", "store"),
    ]


def test_only_the_digest_is_stored(client: TestClient, store: MemoryStore) -> None:
    secret = make(client)

    (record,) = store.list_tokens()

    assert record.sha256 == hashlib.sha256(secret.encode()).hexdigest()
    assert secret not in repr(record)


def test_tokens_outlive_a_restart_and_a_revocation_too(store: MemoryStore) -> None:
    with serve(store) as first:
        kept, revoked = make(first, "kept"), make(first, "revoked")
        assert first.delete("/v1/tokens/revoked", headers=bearer(ADMIN)).status_code == 200

    with serve(store) as second:
        assert second.get("/v1/workloads", headers=bearer(kept)).status_code == 200
        assert second.get("/v1/workloads", headers=bearer(revoked)).status_code == 401


@pytest.mark.parametrize(
    ("method", "path", "body", "status", "needle"),
    [
        ("POST", "/v1/tokens", {"name": "ci-bot", "user": "other"}, 409, "exists"),
        ("POST", "/v1/tokens", {"name": "tokens[0]", "user": "x"}, 422, "body.name"),
        ("POST", "/v1/tokens", {"name": "x", "user": "a b"}, 422, "body.user"),
        ("POST", "/v1/tokens", {"name": "x", "user": "a", "role": "root"}, 422, "body.role"),
        ("POST", "/v1/tokens", {"name": "x", "user": "a", "secret": "mine"}, 422, "body.secret"),
        ("DELETE", "/v1/tokens/tokens[0]", None, 409, "remove its entry"),
        ("DELETE", "/v1/tokens/nope", None, 404, "token list"),
    ],
    ids=["name-taken", "bad-name", "bad-user", "bad-role", "extra-field", "file-token", "unknown"],
)
def test_token_requests_that_cannot_be_done_say_why(
    client: TestClient, method: str, path: str, body: object, status: int, needle: str
) -> None:
    make(client)

    response = client.request(method, path, json=body, headers=bearer(ADMIN))

    assert response.status_code == status, response.text
    assert needle in response.text
