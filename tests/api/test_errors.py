"""Errors are JSON with a code; spec errors carry field paths; never a 500 for user input."""

from __future__ import annotations

import pytest
from tests.api.conftest import ADMIN, ALICE, Api, bearer
from tests.api.specs import job_yaml


def paths(response_json: dict[str, object]) -> list[str]:
    problems = response_json["problems"]
    assert isinstance(problems, list)
    return [p["path"] for p in problems]


def test_no_token_is_401_with_challenge(api: Api) -> None:
    response = api.client.get("/v1/workloads")
    assert response.status_code == 401
    assert response.headers["www-authenticate"] == "Bearer"
    assert response.json()["error"] == "unauthorized"


def test_wrong_scheme_is_401(api: Api) -> None:
    response = api.client.get("/v1/workloads", headers={"Authorization": f"Basic {ALICE}"})
    assert response.status_code == 401


def test_oversized_body_is_413(api: Api) -> None:
    spec = job_yaml() + "# " + "x" * (70 * 1024) + "\n"
    response = api.client.post("/v1/workloads", json={"spec": spec}, headers=bearer(ALICE))
    assert response.status_code == 413
    assert response.json()["error"] == "too_large"
    assert api.scheduler.list() == []


def test_oversized_chunked_body_is_413(api: Api) -> None:
    def chunks() -> object:
        for _ in range(80):
            yield b"x" * 1024

    response = api.client.post(
        "/v1/nodes/import", content=chunks(), headers={**bearer(ADMIN), "content-type": "application/yaml"}
    )
    assert response.status_code == 413


def test_invalid_spec_is_422_with_field_paths(api: Api) -> None:
    bad = job_yaml().replace('nvidia.com/gpu: "4"', 'nvidia.com/gpu: "four"')
    response = api.client.post("/v1/workloads", json={"spec": bad}, headers=bearer(ALICE))
    assert response.status_code == 422, response.text
    body = response.json()
    assert body["error"] == "invalid"
    assert any("nvidia.com/gpu" in p for p in paths(body)), body
    assert all(p["message"] for p in body["problems"])


def test_malformed_body_is_422_with_field_paths(api: Api) -> None:
    response = api.client.post(
        "/v1/workloads", json={"spec": job_yaml(), "priority": "high", "extra": 1}, headers=bearer(ALICE)
    )
    assert response.status_code == 422
    assert sorted(paths(response.json())) == ["body.extra", "body.priority"]


@pytest.mark.parametrize(
    ("body", "path"),
    [
        ({"levels": ["not a label!"]}, "levels[0]"),
        ({"levels": ["kubernetes.io/hostname", "cloud.provider.com/topology-rack"]}, "levels"),
        ({"levels": []}, "body.levels"),
    ],
    ids=["bad-label", "hostname-not-last", "no-levels"],
)
def test_bad_topology_is_422(api: Api, body: dict[str, object], path: str) -> None:
    response = api.client.put("/v1/topologies/t", json=body, headers=bearer(ADMIN))
    assert response.status_code == 422
    assert path in paths(response.json())


KAI = {"name": "kai-be", "k8s_namespace": "gpu", "scheduler_settings": {"scheduler_type": "kai"}}
PLAIN = {"name": "k8s-be", "k8s_namespace": "cpu", "scheduler_settings": {"scheduler_type": "kubernetes"}}


# OSMO's own pool rules and messages (``frontends.osmo.parse_pool``), with its field paths.
@pytest.mark.parametrize(
    ("body", "path", "message"),
    [
        (
            {"topology_keys": [{"key": "rack", "label": "a/rack"}, {"key": "rack", "label": "b/rack"}]},
            "pool.topology_keys[rack].key",
            "key 'rack' is listed twice",
        ),
        (
            {"topology_keys": [{"key": "a", "label": "x/rack"}, {"key": "b", "label": "x/rack"}]},
            "pool.topology_keys[b].label",
            "label 'x/rack' is used by two keys",
        ),
        (
            {"topology_keys": [{"key": "rack", "label": "bad label"}]},
            "pool.topology_keys[rack].label",
            "'bad label' (entry 0) is not a valid node label key",
        ),
        (
            {"backend": PLAIN, "topology_keys": [{"key": "rack", "label": "x/rack"}]},
            "pool.topology_keys",
            "Topology keys cannot be set for pool p: backend k8s-be uses scheduler 'kubernetes'",
        ),
        ({"backend": {"name": "b"}}, "pool.backend.k8s_namespace", ""),
        ({"topology": "missing"}, "topology", "unknown topology 'missing'"),
    ],
    ids=[
        "duplicate-key",
        "duplicate-label",
        "invalid-label",
        "keys-need-kai",
        "bad-backend",
        "unknown-topology",
    ],
)
def test_bad_pool_is_422(api: Api, body: dict[str, object], path: str, message: str) -> None:
    response = api.client.put("/v1/pools/p", json=body, headers=bearer(ADMIN))
    assert response.status_code == 422, response.text
    problems = {p["path"]: p["message"] for p in response.json()["problems"]}
    assert path in problems, problems
    assert message in problems[path]
    assert api.client.get("/v1/pools", headers=bearer(ADMIN)).json() == []


def test_pool_without_keys_may_use_any_backend(api: Api) -> None:
    response = api.client.put("/v1/pools/cpu", json={"backend": PLAIN}, headers=bearer(ADMIN))
    assert response.status_code == 200, response.text
    assert response.json()["backend"]["scheduler_settings"]["scheduler_type"] == "kubernetes"
    assert api.client.get("/v1/pools/cpu/topology-keys", headers=bearer(ALICE)).json() == []


def test_unknown_workload_is_404(api: Api) -> None:
    response = api.client.get("/v1/workloads/999", headers=bearer(ADMIN))
    assert response.status_code == 404
    assert response.json()["error"] == "not_found"


def test_unknown_node_patch_is_404(api: Api) -> None:
    response = api.client.patch("/v1/nodes/nope", json={"ready": False}, headers=bearer(ADMIN))
    assert response.status_code == 404


def test_deleting_a_referenced_topology_is_409(api: Api) -> None:
    api.client.post("/v1/workloads", json={"spec": job_yaml()}, headers=bearer(ALICE)).raise_for_status()
    response = api.client.delete("/v1/topologies/default", headers=bearer(ADMIN))
    assert response.status_code == 409
    assert response.json()["error"] == "conflict"


def test_garbage_import_is_422_not_500(api: Api) -> None:
    response = api.client.post(
        "/v1/nodes/import",
        content=b"kind: [unclosed",
        headers={**bearer(ADMIN), "content-type": "text/plain"},
    )
    assert response.status_code == 422, response.text


def test_empty_node_patch_is_422(api: Api) -> None:
    response = api.client.patch("/v1/nodes/b1-r1-n1", json={}, headers=bearer(ADMIN))
    assert response.status_code == 422
    assert paths(response.json()) == ["body"]
