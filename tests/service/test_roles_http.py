"""Roles over real HTTP: users cannot change topologies, pools or nodes, nor touch another user's
workload; no token gives 401. Also drives the client commands against the live server."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest
import typer
from tests.api.specs import RACK, job_yaml
from tests.service.server import ADMIN, USERS, Server, headers
from typer.testing import CliRunner

from toposched.cli.client import cancel_command, get_command, list_command, submit_command

OWNER, OTHER = USERS["user0"], USERS["user1"]

# (id, token, method, path, body, status); "{wid}" is a workload of user0.
CASES = [
    ("user-put-topology", OTHER, "PUT", "/v1/topologies/t2", {"levels": [RACK]}, 403),
    ("user-put-pool", OTHER, "PUT", "/v1/pools/p", {"topology_keys": []}, 403),
    ("user-patch-node", OTHER, "PATCH", "/v1/nodes/b1-r1-n1", {"ready": False}, 403),
    ("user-import-nodes", OTHER, "POST", "/v1/nodes/import", None, 403),
    ("other-reads", OTHER, "GET", "/v1/workloads/{wid}", None, 404),
    ("other-cancels", OTHER, "DELETE", "/v1/workloads/{wid}", None, 404),
    ("no-token", None, "GET", "/v1/workloads/{wid}", None, 401),
    ("other-finishes", OTHER, "POST", "/v1/workloads/{wid}/finish", None, 404),
    ("user-sets-pod-status", OWNER, "PUT", "/v1/workloads/{wid}/pods/p0/status", {"status": "Failed"}, 403),
    ("user-deletes-pool", OTHER, "DELETE", "/v1/pools/p", None, 403),
    ("user-deletes-node", OTHER, "DELETE", "/v1/nodes/b1-r1-n1", None, 403),
    ("no-token-finish", None, "POST", "/v1/workloads/{wid}/finish", None, 401),
    ("owner-reads", OWNER, "GET", "/v1/workloads/{wid}", None, 200),
    ("admin-puts-topology", ADMIN, "PUT", "/v1/topologies/t2", {"levels": [RACK]}, 200),
]


@pytest.fixture
def workload(server: Server) -> int:
    response = httpx.post(f"{server.url}/v1/workloads", json={"spec": job_yaml()}, headers=headers(OWNER))
    assert response.status_code == 201
    workload_id: int = response.json()["id"]
    return workload_id


def test_roles_over_http(server: Server, workload: int) -> None:
    with httpx.Client(timeout=10.0) as client:
        for case_id, token, method, path, body, status in CASES:
            response = client.request(
                method,
                server.url + path.replace("{wid}", str(workload)),
                json=body,
                headers=headers(token) if token else {},
            )
            assert response.status_code == status, (case_id, response.text)
        assert client.get(f"{server.url}/v1/workloads/{workload}", headers=headers(OWNER)).json()[
            "state"
        ] != ("cancelled")


def cli(*commands: Callable[..., None]) -> typer.Typer:
    """The client commands as one app, registered the way ``cli/main.py`` does."""
    app = typer.Typer()
    for command in commands:
        app.command(command.__name__.removesuffix("_command"))(command)
    return app


def test_client_commands(server: Server, tmp_path: Path) -> None:
    runner = CliRunner()
    app = cli(submit_command, get_command, list_command, cancel_command)
    common = ["--server", server.url]
    owner = {"TOPOSCHED_TOKEN": OWNER}
    spec = tmp_path / "job.yaml"
    spec.write_text(job_yaml("cli-job"), encoding="utf-8")

    submitted = runner.invoke(app, ["submit", str(spec), "-o", "json", *common], env=owner)
    assert submitted.exit_code == 0, submitted.output
    workload_id = json.loads(submitted.output)["id"]
    listed = runner.invoke(app, ["list", *common], env=owner)
    assert "cli-job" in listed.output
    shown = runner.invoke(app, ["get", str(workload_id), *common], env=owner)
    assert shown.exit_code == 0 and "cli-job" in shown.output
    denied = runner.invoke(app, ["get", str(workload_id), *common], env={"TOPOSCHED_TOKEN": OTHER})
    assert denied.exit_code == 2  # another user's workload: not found, like a bad id
    assert "error 404" in denied.output
    cancelled = runner.invoke(app, ["cancel", str(workload_id), *common], env=owner)
    assert cancelled.exit_code == 0 and "cancelled" in cancelled.output
    bad = tmp_path / "bad.yaml"
    bad.write_text(job_yaml().replace('"4"', '"four"'), encoding="utf-8")
    invalid = runner.invoke(app, ["submit", str(bad), *common], env=owner)
    assert invalid.exit_code == 2
    assert "nvidia.com/gpu" in invalid.output
