"""Managed topologies and OSMO pools with their lifecycle guards, and the finish and pod-status
endpoints, over the in-process app."""

from __future__ import annotations

from dataclasses import replace

from tests.api.conftest import ADMIN, ALICE, BOB, Api, bearer
from tests.api.specs import BLOCK, HOST, RACK, ZONE, job_yaml

from toposched.store import WorkloadRecord

LEVELS = [ZONE, BLOCK, RACK, HOST]


def submit(api: Api, token: str = ALICE, *, name: str = "train", pods: int = 2) -> int:
    spec = job_yaml(name, pods=pods)
    response = api.client.post("/v1/workloads", json={"spec": spec}, headers=bearer(token))
    assert response.status_code == 201, response.text
    workload_id: int = response.json()["id"]
    return workload_id


def test_delete_of_a_referenced_topology_is_refused_naming_workloads_and_pools(api: Api) -> None:
    wid = submit(api)
    api.client.put("/v1/pools/gpu", json={"topology": "default"}, headers=bearer(ADMIN)).raise_for_status()
    response = api.client.delete("/v1/topologies/default", headers=bearer(ADMIN))
    assert response.status_code == 409
    assert f"workload {wid}" in response.json()["message"]
    assert "pool 'gpu'" in response.json()["message"]
    assert api.client.get("/v1/topologies/default", headers=bearer(ALICE)).status_code == 200
    # Refused, not deferred: once the references are gone, the delete goes through.
    api.client.delete(f"/v1/workloads/{wid}", headers=bearer(ALICE)).raise_for_status()
    api.client.delete("/v1/pools/gpu", headers=bearer(ADMIN)).raise_for_status()
    assert api.client.delete("/v1/topologies/default", headers=bearer(ADMIN)).status_code == 204


def test_levels_are_frozen_while_admitted_but_aliases_may_change(api: Api) -> None:
    pending = {"levels": [RACK, HOST]}
    wid = submit(api)
    # A pending workload holds no capacity: its topology's levels may still change.
    assert api.client.put("/v1/topologies/default", json=pending, headers=bearer(ADMIN)).status_code == 200
    api.client.put(
        "/v1/topologies/default", json={"levels": LEVELS}, headers=bearer(ADMIN)
    ).raise_for_status()
    api.scheduler.cycle()
    assert api.scheduler.get(wid).state == "admitted"
    refused = api.client.put("/v1/topologies/default", json=pending, headers=bearer(ADMIN))
    assert refused.status_code == 409
    assert f"workloads {wid} hold capacity" in refused.json()["message"]
    aliases = {"levels": LEVELS, "aliases": {"rack": RACK}}
    assert api.client.put("/v1/topologies/default", json=aliases, headers=bearer(ADMIN)).status_code == 200
    assert api.store.get_topology("default").aliases == {"rack": RACK}


def test_pool_keys_come_from_the_osmo_parse(api: Api) -> None:
    keys = [{"key": "zone", "label": ZONE}, {"key": "rack", "label": RACK}]
    body = {"topology": "default", "topology_keys": keys, "description": "A100s"}
    stored = api.client.put("/v1/pools/gpu", json=body, headers=bearer(ADMIN))
    assert stored.status_code == 200, stored.text
    assert stored.json()["backend"]["scheduler_settings"]["scheduler_type"] == "kai"
    got = api.client.get("/v1/pools/gpu/topology-keys", headers=bearer(BOB)).json()
    assert got == [{"key": "zone", "label": ZONE, "order": 0}, {"key": "rack", "label": RACK, "order": 1}]
    assert api.client.get("/v1/pools/nope/topology-keys", headers=bearer(BOB)).status_code == 404


def test_pool_used_by_a_workload_cannot_be_deleted(api: Api) -> None:
    api.client.put("/v1/pools/gpu", json={"topology": "default"}, headers=bearer(ADMIN)).raise_for_status()
    record = api.store.submit_workload(replace(WorkloadRecord("w", "Job", "alice", job_yaml()), pool="gpu"))
    response = api.client.delete("/v1/pools/gpu", headers=bearer(ADMIN))
    assert response.status_code == 409
    assert f"workloads {record.id}" in response.json()["message"]


def test_finish_releases_capacity_for_owner_or_admin(api: Api) -> None:
    mine, theirs = submit(api, name="mine"), submit(api, BOB, name="theirs")
    api.scheduler.cycle()
    assert api.client.post(f"/v1/workloads/{theirs}/finish", headers=bearer(ALICE)).status_code == 404
    done = api.client.post(f"/v1/workloads/{mine}/finish", headers=bearer(ALICE))
    assert done.status_code == 200, done.text
    assert done.json()["state"] == "finished"
    assert api.store.reservations(mine) == {}
    assert (
        api.client.post(f"/v1/workloads/{theirs}/finish", headers=bearer(ADMIN)).json()["state"] == "finished"
    )
    assert api.store.reserved_by_node() == {}
    again = api.client.post(f"/v1/workloads/{mine}/finish", headers=bearer(ALICE))
    assert again.json()["state"] == "finished"  # idempotent
    assert api.client.delete(f"/v1/workloads/{mine}", headers=bearer(ALICE)).status_code == 409


def test_pod_status_marks_running_and_validates(api: Api) -> None:
    wid = submit(api, pods=2)
    url = f"/v1/workloads/{wid}/pods/{{pod}}/status"
    early = api.client.put(url.format(pod="x"), json={"status": "Running"}, headers=bearer(ADMIN))
    assert early.status_code == 409  # pending: no pods yet
    api.scheduler.cycle()
    pod = api.scheduler.get(wid).placement["pods"][0]["name"]
    assert (
        api.client.put(url.format(pod=pod), json={"status": "Running"}, headers=bearer(ALICE)).status_code
        == 403
    )
    running = api.client.put(url.format(pod=pod), json={"status": "Running"}, headers=bearer(ADMIN))
    assert running.status_code == 200, running.text
    assert running.json()["state"] == "running"
    assert running.json()["pods"][pod] == "Running"
    failed = api.client.put(url.format(pod=pod), json={"status": "Failed"}, headers=bearer(ADMIN))
    assert failed.json()["pods"][pod] == "Failed"
    bad = api.client.put(url.format(pod=pod), json={"status": "Exploded"}, headers=bearer(ADMIN))
    assert bad.status_code == 422
    assert (
        api.client.put(url.format(pod="ghost"), json={"status": "Failed"}, headers=bearer(ADMIN)).status_code
        == 404
    )
