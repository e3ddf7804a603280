"""``toposched token create|list|revoke`` against the service's real app (in process): an admin
makes a token that works at once, lists tokens without any secret, revokes one that is refused
from then on; a user is refused (exit 2). And ``serve`` says where its tokens are on every start."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from tests.api.conftest import ADMIN, ALICE, AUTH
from tests.service.server import free_port
from typer.testing import CliRunner, Result

from toposched.api import Limits, create_app
from toposched.cli.main import app
from toposched.scheduler import ManualClock, Scheduler
from toposched.store import MemoryStore


@pytest.fixture
def service(monkeypatch: pytest.MonkeyPatch) -> Iterator[TestClient]:
    """The service's app behind the client commands' ``httpx.request``."""
    scheduler = Scheduler(MemoryStore(), ManualClock(1000.0))
    with TestClient(create_app(scheduler, AUTH, limits=Limits(), run_loop=False)) as client:

        def request(method: str, url: str, **kwargs: Any) -> httpx.Response:
            kwargs.pop("timeout", None)  # the client's; the test client refuses one
            return client.request(method, url, **kwargs)

        monkeypatch.setattr(httpx, "request", request)
        monkeypatch.delenv("TOPOSCHED_SERVER", raising=False)
        monkeypatch.delenv("TOPOSCHED_TOKEN", raising=False)
        yield client


def toposched(*args: str) -> Result:
    return CliRunner().invoke(app, list(args))


def test_create_list_revoke(service: TestClient) -> None:
    created = toposched("token", "create", "ci-bot", "--user", "ci", "--token", ADMIN)
    assert created.exit_code == 0, created.output
    headline, secret = created.stdout.splitlines()
    assert (
        headline
        == "created token ci-bot for user ci (user); its secret, shown this once (only its SHA-256 is kept):"
    )
    assert service.get("/v1/workloads", headers={"Authorization": f"Bearer {secret}"}).status_code == 200

    listed = toposched("token", "list", "--token", ADMIN)
    assert listed.exit_code == 0, listed.output
    assert [line.split() for line in listed.stdout.splitlines()] == [
        ["NAME", "USER", "ROLE", "SOURCE", "CREATED-BY"],
        ["tokens[0]", "root", "admin", "file"],
        ["tokens[1]", "alice", "user", "file"],
        ["tokens[2]", "bob", "user", "file"],
        ["ci-bot", "ci", "user", "store", "root"],
    ]
    as_json = toposched("token", "list", "--token", ADMIN, "-o", "json")
    for output in (listed.stdout, as_json.stdout):
        assert secret not in output and ADMIN not in output and ALICE not in output
    assert [row["name"] for row in json.loads(as_json.stdout)][-1] == "ci-bot"

    revoked = toposched("token", "revoke", "ci-bot", "--token", ADMIN)
    assert revoked.exit_code == 0, revoked.output
    assert revoked.stdout == "revoked token ci-bot of user ci: refused from now on\n"
    refused = toposched("list", "--token", secret)
    assert refused.exit_code == 2
    assert "error 401: unknown token" in refused.stderr


def test_a_user_cannot_create_list_or_revoke_tokens(service: TestClient) -> None:
    for args in (["create", "mine", "--user", "alice", "--role", "admin"], ["list"], ["revoke", "tokens[0]"]):
        result = toposched("token", *args, "--token", ALICE)
        assert result.exit_code == 2, (args, result.output)
        assert "error 403: user 'alice' is not an admin" in result.stderr
    assert len(service.get("/v1/tokens", headers={"Authorization": f"Bearer {ADMIN}"}).json()) == 3


def test_a_file_token_is_not_revoked_here_and_says_where_it_is(service: TestClient) -> None:
    result = toposched("token", "revoke", "tokens[1]", "--token", ADMIN)

    assert result.exit_code == 1  # 409: a conflict with the service's state
    assert "comes from the tokens file" in result.stderr and "remove its entry" in result.stderr


def test_an_unknown_output_format_is_refused(service: TestClient) -> None:
    result = toposched("token", "list", "--token", ADMIN, "-o", "xml")

    assert result.exit_code == 2
    assert result.stderr == "--output: unknown format 'xml' (use one of table, wide, json, yaml, name)\n"


_LAUNCH = "import typer; from toposched.cli.serve import serve_command; typer.run(serve_command)"


def start_and_stop_serve(db: Path) -> list[str]:
    """Run ``serve`` on ``db`` until it answers, stop it (SIGINT) and return what it printed."""
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-c", _LAUNCH, "--db", str(db), "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env={**os.environ, "COLUMNS": "400"},
    )
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and process.poll() is None:
            try:
                if httpx.get(f"http://127.0.0.1:{port}/v1/health", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.05)
        process.send_signal(signal.SIGINT)
        out, _ = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    return [
        line for line in out.splitlines() if line.startswith(("created development", "tokens:", "new token:"))
    ]


@pytest.mark.slow  # two starts of the service process
def test_serve_says_where_its_tokens_are_on_every_start(tmp_path: Path) -> None:
    db = tmp_path / "toposched.db"
    tokens_file = f"{db}.tokens.yaml"
    where = f"tokens: 2 in {tokens_file} (read at start), 0 made with `toposched token create` (in the store {db})"
    how = (
        "new token: toposched token create NAME --user USER [--role admin] --token ADMIN_TOKEN (no admin "
        f"token left: add {{token: SECRET, user: NAME, role: admin}} to {tokens_file} and restart)"
    )

    first = start_and_stop_serve(db)
    again = start_and_stop_serve(db)

    assert first == [
        f"created development tokens in {tokens_file} (only their SHA-256 is kept; shown once):",
        where,
        how,
    ]
    assert again == [where, how]
