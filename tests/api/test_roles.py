"""The role matrix: what admins, owners and other users may do, as one table."""

from __future__ import annotations

import pytest
from tests.api.conftest import ADMIN, ALICE, BOB, Api, bearer
from tests.api.specs import RACK, job_yaml

TOPOLOGY = {"levels": [RACK, "kubernetes.io/hostname"]}
POOL = {"topology_keys": [{"key": "rack", "label": RACK}]}

# (id, token, method, path, json body, expected status). "{wid}" is a workload owned by alice.
MATRIX = [
    ("admin-put-topology", ADMIN, "PUT", "/v1/topologies/racks", TOPOLOGY, 200),
    ("user-put-topology", ALICE, "PUT", "/v1/topologies/racks", TOPOLOGY, 403),
    ("user-delete-topology", ALICE, "DELETE", "/v1/topologies/default", None, 403),
    ("user-read-topologies", ALICE, "GET", "/v1/topologies", None, 200),
    ("admin-put-pool", ADMIN, "PUT", "/v1/pools/p1", POOL, 200),
    ("user-put-pool", ALICE, "PUT", "/v1/pools/p1", POOL, 403),
    ("user-list-pools", ALICE, "GET", "/v1/pools", None, 403),
    ("user-delete-pool", ALICE, "DELETE", "/v1/pools/p0", None, 403),
    ("user-reads-pool-keys", ALICE, "GET", "/v1/pools/p0/topology-keys", None, 200),
    ("admin-patch-node", ADMIN, "PATCH", "/v1/nodes/b1-r1-n1", {"ready": False}, 200),
    ("user-patch-node", ALICE, "PATCH", "/v1/nodes/b1-r1-n1", {"ready": False}, 403),
    ("user-delete-node", ALICE, "DELETE", "/v1/nodes/b1-r1-n1", None, 403),
    ("user-import-nodes", ALICE, "POST", "/v1/nodes/import", None, 403),
    ("user-reads-nodes", BOB, "GET", "/v1/nodes", None, 200),
    ("owner-reads-workload", ALICE, "GET", "/v1/workloads/{wid}", None, 200),
    ("other-reads-workload", BOB, "GET", "/v1/workloads/{wid}", None, 404),
    ("admin-reads-workload", ADMIN, "GET", "/v1/workloads/{wid}", None, 200),
    ("other-cancels-workload", BOB, "DELETE", "/v1/workloads/{wid}", None, 404),
    ("other-lists-owner", BOB, "GET", "/v1/workloads?owner=alice", None, 403),
    ("other-reads-events", BOB, "GET", "/v1/events?workload={wid}", None, 404),
    ("owner-finishes-workload", ALICE, "POST", "/v1/workloads/{wid}/finish", None, 200),
    ("other-finishes-workload", BOB, "POST", "/v1/workloads/{wid}/finish", None, 404),
    ("admin-finishes-workload", ADMIN, "POST", "/v1/workloads/{wid}/finish", None, 200),
    ("no-token-finish", None, "POST", "/v1/workloads/{wid}/finish", None, 401),
    ("owner-sets-pod-status", ALICE, "PUT", "/v1/workloads/{wid}/pods/p0/status", {"status": "Failed"}, 403),
    ("other-sets-pod-status", BOB, "PUT", "/v1/workloads/{wid}/pods/p0/status", {"status": "Failed"}, 403),
    # Admin passes the role check; the workload is still pending, so it has no pods yet.
    ("admin-sets-pod-status", ADMIN, "PUT", "/v1/workloads/{wid}/pods/p0/status", {"status": "Failed"}, 409),
    ("no-token-pod-status", None, "PUT", "/v1/workloads/{wid}/pods/p0/status", {"status": "Failed"}, 401),
    ("user-delete-topology-in-use", BOB, "DELETE", "/v1/topologies/default", None, 403),
    ("admin-delete-topology-in-use", ADMIN, "DELETE", "/v1/topologies/default", None, 409),
    ("admin-delete-pool", ADMIN, "DELETE", "/v1/pools/p0", None, 204),
    ("owner-cancels-workload", ALICE, "DELETE", "/v1/workloads/{wid}", None, 200),
    ("admin-cancels-workload", ADMIN, "DELETE", "/v1/workloads/{wid}", None, 200),
    ("no-token-submit", None, "POST", "/v1/workloads", {"spec": "x"}, 401),
    ("no-token-list", None, "GET", "/v1/workloads", None, 401),
    ("bad-token-nodes", "not-a-real-token-at-all", "GET", "/v1/nodes", None, 401),
]


@pytest.mark.parametrize(
    ("token", "method", "path", "body", "status"), [m[1:] for m in MATRIX], ids=[m[0] for m in MATRIX]
)
def test_role_matrix(api: Api, token: str | None, method: str, path: str, body: object, status: int) -> None:
    api.client.put("/v1/pools/p0", json=POOL, headers=bearer(ADMIN)).raise_for_status()
    submitted = api.client.post("/v1/workloads", json={"spec": job_yaml()}, headers=bearer(ALICE))
    assert submitted.status_code == 201, submitted.text
    url = path.replace("{wid}", str(submitted.json()["id"]))
    headers = bearer(token) if token else {}
    response = api.client.request(method, url, json=body, headers=headers)
    assert response.status_code == status, response.text
    if status != 204:
        assert response.headers["content-type"].startswith("application/json")


def test_forbidden_changes_leave_state_alone(api: Api) -> None:
    submitted = api.client.post("/v1/workloads", json={"spec": job_yaml()}, headers=bearer(ALICE)).json()
    api.client.delete(f"/v1/workloads/{submitted['id']}", headers=bearer(BOB))
    api.client.patch("/v1/nodes/b1-r1-n1", json={"ready": False}, headers=bearer(BOB))
    assert api.scheduler.get(submitted["id"]).state == "pending"
    assert api.store.get_node("b1-r1-n1").ready is True


def test_users_list_only_their_own(api: Api) -> None:
    for token in (ALICE, BOB, BOB):
        api.client.post("/v1/workloads", json={"spec": job_yaml()}, headers=bearer(token)).raise_for_status()
    owners = {
        name: [w["owner"] for w in api.client.get("/v1/workloads", headers=bearer(t)).json()]
        for name, t in (("alice", ALICE), ("bob", BOB), ("root", ADMIN))
    }
    assert owners == {"alice": ["alice"], "bob": ["bob", "bob"], "root": ["alice", "bob", "bob"]}
