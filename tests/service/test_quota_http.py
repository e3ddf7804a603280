"""``toposched serve --quota-*`` over HTTP: the default quota holds across a restart, an admin's
quota for one user is stored, and ``toposched submit`` past a quota exits 1 with the message."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import typer
from tests.api.specs import cluster_yaml, job_yaml
from tests.service.server import ADMIN, USERS, Server, headers
from typer.testing import CliRunner

from toposched.cli.client import submit_command

ALICE, BOB = USERS["user0"], USERS["user1"]


@pytest.fixture
def limited(tmp_path: Path) -> Iterator[Server]:
    server = Server(tmp_path, cluster=cluster_yaml(), options=("--quota-workloads", "1"))
    server.start()
    try:
        yield server
    finally:
        server.kill()


def test_the_quota_flags_bound_each_users_pending_work(limited: Server, tmp_path: Path) -> None:
    pending = job_yaml("waits", gpus=64)  # no node has 64 GPUs
    with httpx.Client(base_url=limited.url, timeout=10.0) as client:
        assert client.post("/v1/workloads", json={"spec": pending}, headers=headers(ALICE)).status_code == 201
        over = client.post("/v1/workloads", json={"spec": pending}, headers=headers(ALICE))
        assert over.status_code == 429 and over.json()["limit"] == "quota.workloads"
        raised = {"workloads": 2, "pods": 100, "specBytes": 10**6}
        assert client.put("/v1/quotas/user1", json=raised, headers=headers(ADMIN)).status_code == 200
    limited.stop()
    limited.start()  # the admin's quota for user1 is in the store; the default comes from the flags
    with httpx.Client(base_url=limited.url, timeout=10.0) as client:
        for _ in range(2):
            assert (
                client.post("/v1/workloads", json={"spec": pending}, headers=headers(BOB)).status_code == 201
            )
        assert client.post("/v1/workloads", json={"spec": pending}, headers=headers(BOB)).status_code == 429
    app = typer.Typer()
    app.command("submit")(submit_command)
    spec = tmp_path / "job.yaml"
    spec.write_text(pending, encoding="utf-8")
    refused = CliRunner().invoke(app, [str(spec), "--server", limited.url], env={"TOPOSCHED_TOKEN": ALICE})
    assert refused.exit_code == 1, refused.output
    assert "error 429" in refused.output and "quota.workloads" in refused.output
