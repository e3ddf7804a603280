"""Submit, place (one cycle), read placement and explanation, cancel; events; nodes and pools."""

from __future__ import annotations

import json

from tests.api.conftest import ADMIN, ALICE, Api, bearer
from tests.api.specs import RACK, job_yaml, node_names


def submit(api: Api, spec: str, token: str = ALICE) -> dict[str, object]:
    response = api.client.post("/v1/workloads", json={"spec": spec}, headers=bearer(token))
    assert response.status_code == 201, response.text
    body = response.json()
    assert isinstance(body, dict)
    return body


def test_submit_is_pending_then_admitted_with_placement(api: Api) -> None:
    record = submit(api, job_yaml("train", pods=2, gpus=8))
    assert record["state"] == "pending"
    assert record["owner"] == "alice"
    api.scheduler.cycle()
    got = api.client.get(f"/v1/workloads/{record['id']}", headers=bearer(ALICE)).json()
    assert got["state"] == "admitted"
    nodes = [p["node"] for p in got["placement"]["pods"]]
    assert len(nodes) == 2
    assert len({n.rsplit("-", 1)[0] for n in nodes}) == 1  # both in one rack
    spec = json.loads(got["spec"])  # the submitted documents, as the service parsed them
    assert spec["frontend"] == "kueue"
    (document,) = spec["documents"]
    assert (document["apiVersion"], document["kind"]) == ("batch/v1", "Job")


def test_too_big_waits_with_explanation(api: Api) -> None:
    record = submit(api, job_yaml("huge", pods=5, gpus=8))  # a rack has 4 nodes
    api.scheduler.cycle()
    got = api.client.get(f"/v1/workloads/{record['id']}", headers=bearer(ALICE)).json()
    assert got["state"] == "pending"
    assert got["placement"] is None
    assert got["explanation"]["reason"]


def test_cancel_releases_capacity(api: Api) -> None:
    record = submit(api, job_yaml(pods=4, gpus=8))
    api.scheduler.cycle()
    assert api.store.reserved_by_node()
    response = api.client.delete(f"/v1/workloads/{record['id']}", headers=bearer(ALICE))
    assert response.status_code == 200
    assert response.json()["state"] == "cancelled"
    assert api.store.reserved_by_node() == {}


def test_events_are_filtered_per_user(api: Api) -> None:
    mine = submit(api, job_yaml("mine"))
    theirs = submit(api, job_yaml("theirs"), token=ADMIN)
    api.scheduler.cycle()
    seen_by_alice = {e["workload"] for e in api.client.get("/v1/events", headers=bearer(ALICE)).json()}
    seen_by_admin = {e["workload"] for e in api.client.get("/v1/events", headers=bearer(ADMIN)).json()}
    assert seen_by_alice == {mine["id"]}
    assert {mine["id"], theirs["id"]} <= seen_by_admin


def test_list_filters_by_state(api: Api) -> None:
    submit(api, job_yaml("fits", pods=1))
    submit(api, job_yaml("huge", pods=5, gpus=8))
    api.scheduler.cycle()
    response = api.client.get("/v1/workloads?state=admitted", headers=bearer(ALICE))
    assert [w["name"] for w in response.json()] == ["fits"]


def test_node_patch_sets_readiness_and_taints(api: Api) -> None:
    body = {"ready": False, "taints": [{"key": "maintenance", "effect": "NoExecute"}]}
    response = api.client.patch("/v1/nodes/b1-r1-n1", json=body, headers=bearer(ADMIN))
    assert response.status_code == 200, response.text
    node = api.store.get_node("b1-r1-n1")
    assert node.ready is False
    assert [str(t) for t in node.taints] == ["maintenance:NoExecute"]


def test_import_and_list_nodes(api: Api) -> None:
    nodes = api.client.get("/v1/nodes", headers=bearer(ALICE)).json()
    assert [n["name"] for n in nodes] == sorted(node_names())
    assert nodes[0]["allocatable"]["nvidia.com/gpu"] == "8"


def test_pool_topology_keys_in_order(api: Api) -> None:
    keys = [{"key": "block", "label": "cloud.provider.com/topology-block"}, {"key": "rack", "label": RACK}]
    put = api.client.put("/v1/pools/p1", json={"topology_keys": keys}, headers=bearer(ADMIN))
    assert put.status_code == 200, put.text
    got = api.client.get("/v1/pools/p1/topology-keys", headers=bearer(ALICE)).json()
    assert got == [
        {"key": "block", "label": "cloud.provider.com/topology-block", "order": 0},
        {"key": "rack", "label": RACK, "order": 1},
    ]


def test_health_and_openapi(api: Api) -> None:
    assert api.client.get("/v1/health").json() == {
        "status": "ok",
        "store": "ok",
        "loop": {"lastCycleAt": None, "lastError": None, "lastErrorAt": None, "broken": 0},
    }
    schema = api.client.get("/openapi.json").json()
    assert "/v1/pools/{name}/topology-keys" in schema["paths"]


def test_a_listing_gives_each_pending_workload_its_place_in_the_admission_order(api: Api) -> None:
    low = submit(api, job_yaml("low", pods=5, gpus=8))  # too big for any rack: stays pending
    high = submit(api, job_yaml("high", pods=5, gpus=8), token=ADMIN)
    api.client.post(
        "/v1/workloads?priority=5",
        content=job_yaml("urgent", pods=5, gpus=8),
        headers={**bearer(ALICE), "Content-Type": "application/yaml"},
    )
    placed = submit(api, job_yaml("fits", pods=1, gpus=8))
    api.scheduler.cycle()
    rows = {r["name"]: r for r in api.client.get("/v1/workloads", headers=bearer(ALICE)).json()}
    # priority first, then arrival; another user's workload counts, though alice does not see it
    assert rows["urgent"]["position"] == 1 and rows["low"]["position"] == 2
    assert "position" not in rows["fits"] and rows["fits"]["id"] == placed["id"]
    everyone = {r["name"]: r for r in api.client.get("/v1/workloads", headers=bearer(ADMIN)).json()}
    assert everyone["high"]["position"] == 3 and everyone["high"]["id"] == high["id"] != low["id"]
    # LocalQueue research/gpu-queue: no queue of that name is configured, so ``default``
    assert rows["fits"]["queue"] == rows["low"]["queue"] == "default"


def test_a_listing_names_each_active_workload_s_scheduling_queue(api: Api) -> None:
    api.client.put(
        "/v1/queues/gpu-queue", json={"name": "gpu-queue"}, headers=bearer(ADMIN)
    ).raise_for_status()
    placed = submit(api, job_yaml("fits", pods=1, gpus=8))
    gone = submit(api, job_yaml("gone", pods=1, gpus=8))
    api.client.delete(f"/v1/workloads/{gone['id']}", headers=bearer(ALICE)).raise_for_status()
    api.scheduler.cycle()
    rows = {r["name"]: r for r in api.client.get("/v1/workloads", headers=bearer(ALICE)).json()}
    assert rows["fits"]["queue"] == "gpu-queue" and rows["fits"]["id"] == placed["id"]
    assert "queue" not in rows["gone"]  # cancelled: it holds nothing in any queue
