"""Scheduling queues over HTTP: admins put and delete them, anyone reads them with their usage;
a bad spec is a 422 naming each field, a user's write a 403, an unknown queue a 404."""

from __future__ import annotations

from tests.api.conftest import ADMIN, ALICE, Api, bearer
from tests.api.specs import job_yaml

TEAM = {"name": "gpu-queue", "guaranteed": {"nvidia.com/gpu": 8}, "limit": {"nvidia.com/gpu": 8}}


def test_admin_puts_anyone_reads_with_usage(api: Api) -> None:
    put = api.client.put("/v1/queues", json=TEAM, headers=bearer(ADMIN))
    assert put.status_code == 200, put.text
    assert put.json()["guaranteed"] == {"nvidia.com/gpu": "8"} and put.json()["usage"] == {}
    # job_yaml names LocalQueue gpu-queue: no queue lists it, so the queue of that name takes it.
    for name in ("a", "b"):
        spec = job_yaml(name, pods=1, gpus=8)
        assert api.client.post("/v1/workloads", json={"spec": spec}, headers=bearer(ALICE)).status_code == 201
    api.scheduler.cycle()
    shown = api.client.get("/v1/queues/gpu-queue", headers=bearer(ALICE)).json()
    assert shown["usage"]["nvidia.com/gpu"] == "8" and shown["admitted"] == 1 and shown["pending"] == 1
    assert shown["borrowed"] == {} and shown["quota"] == {"nvidia.com/gpu": "8"}
    listed = api.client.get("/v1/queues", headers=bearer(ALICE)).json()
    assert [q["name"] for q in listed] == ["default", "gpu-queue"]


def test_put_by_path_and_delete(api: Api) -> None:
    body = {k: v for k, v in TEAM.items() if k != "name"}
    assert api.client.put("/v1/queues/q1", json=body, headers=bearer(ADMIN)).json()["name"] == "q1"
    mismatch = api.client.put("/v1/queues/q1", json={"name": "q2"}, headers=bearer(ADMIN))
    assert mismatch.status_code == 422 and mismatch.json()["problems"][0]["path"] == "queue.name"
    assert api.client.delete("/v1/queues/q1", headers=bearer(ADMIN)).status_code == 204
    assert api.client.get("/v1/queues/q1", headers=bearer(ADMIN)).status_code == 404


def test_a_bad_spec_is_422_naming_each_field(api: Api) -> None:
    bad = {"name": "q", "weight": 0, "limit": {"nvidia.com/gpu": "many"}, "parent": "nowhere"}
    response = api.client.put("/v1/queues", json=bad, headers=bearer(ADMIN))
    assert response.status_code == 422
    assert {p["path"] for p in response.json()["problems"]} == {"queue.weight", "queue.limit.nvidia.com/gpu"}
    orphan = api.client.put("/v1/queues", json={"name": "q", "parent": "nowhere"}, headers=bearer(ADMIN))
    assert orphan.status_code == 422 and orphan.json()["problems"][0]["path"] == "queues.q.parent"
    assert api.client.put("/v1/queues", json=["q"], headers=bearer(ADMIN)).status_code == 422
    assert [q.name for q in api.store.list_queues()] == []


def test_users_may_not_write(api: Api) -> None:
    assert api.client.put("/v1/queues", json=TEAM, headers=bearer(ALICE)).status_code == 403
    assert api.client.delete("/v1/queues/default", headers=bearer(ALICE)).status_code == 403
    assert api.client.get("/v1/queues", headers={}).status_code == 401


def test_the_page_loads_the_queue_table_from_its_own_file(api: Api) -> None:
    assert '<table id="queues">' in api.client.get("/").text
    script = api.client.get("/static/queues.js")
    assert script.status_code == 200 and script.headers["content-type"].startswith("text/javascript")
    assert "/v1/queues" in script.text and "http://" not in script.text and "https://" not in script.text
