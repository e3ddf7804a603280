"""``toposched submit / get / list / cancel`` against a stand-in server: where they connect, the
exit codes scripts rely on, and the tables they print."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
from typer.testing import CliRunner

from toposched.cli.main import app

WORKLOADS = [
    {"id": 7, "name": "train-rack", "kind": "Job", "owner": "alice", "priority": 0, "state": "pending"},
    {
        "id": 12,
        "name": "a-much-longer-name",
        "kind": "JobSet",
        "owner": "bob",
        "priority": 10,
        "state": "admitted",
    },
]
HEADER = ["ID", "NAME", "STATE", "OWNER", "QUEUE", "PRIORITY", "POSITION", "TOPOLOGY", "AGE", "REASON"]
TAINTED = {
    "reason": 'topology "default" doesn\'t allow to fit any of 4 pod(s). Total nodes: 3; excluded: '
    'taint "nvidia.com/gpu=present:NoSchedule": 3',
    "totalNodes": 3,
    "excluded": {'taint "nvidia.com/gpu=present:NoSchedule"': 3},
    "shortfall": {"nvidia.com/gpu": 16},
}


@dataclass
class FakeServer:
    """Answers every request with ``status`` and ``body``; records what was asked."""

    status: int = 200
    body: Any = field(default_factory=lambda: WORKLOADS)
    calls: list[tuple[str, str, dict[str, str]]] = field(default_factory=list)
    params: list[dict[str, Any]] = field(default_factory=list)

    def request(self, method: str, url: str, **kwargs: Any) -> httpx.Response:
        self.calls.append((method, url, dict(kwargs.get("headers") or {})))
        self.params.append(dict(kwargs.get("params") or {}))
        return httpx.Response(self.status, json=self.body, request=httpx.Request(method, url))


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> FakeServer:
    fake = FakeServer()
    monkeypatch.setattr(httpx, "request", fake.request)
    monkeypatch.delenv("TOPOSCHED_SERVER", raising=False)
    monkeypatch.delenv("TOPOSCHED_TOKEN", raising=False)
    return fake


def run(*args: str, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, list(args), env=env)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.stdout, result.stderr


def test_server_and_token_from_the_environment(server: FakeServer) -> None:
    env = {"TOPOSCHED_SERVER": "http://sched.example:9000", "TOPOSCHED_TOKEN": "t0ken"}
    code, _, _ = run("list", env=env)
    assert code == 0
    method, url, headers = server.calls[0]
    assert (method, url) == ("GET", "http://sched.example:9000/v1/workloads")
    assert headers["Authorization"] == "Bearer t0ken"


def test_list_pages_with_after_and_limit(server: FakeServer) -> None:
    code, _, _ = run("list", "--token", "t", "--after", "5", "--limit", "2")
    assert code == 0
    assert server.params[0] == {"after": 5, "limit": 2}


def test_flags_override_the_environment(server: FakeServer) -> None:
    env = {"TOPOSCHED_SERVER": "http://sched.example:9000", "TOPOSCHED_TOKEN": "t0ken"}
    code, _, _ = run("list", "--server", "http://other:1", "--token", "mine", env=env)
    assert code == 0
    _, url, headers = server.calls[0]
    assert url == "http://other:1/v1/workloads"
    assert headers["Authorization"] == "Bearer mine"


@pytest.mark.parametrize(
    ("status", "code"),
    [(400, 2), (401, 2), (403, 2), (404, 2), (413, 2), (422, 2), (409, 1), (429, 1), (500, 1), (503, 1)],
)
def test_exit_codes_by_answer(server: FakeServer, status: int, code: int) -> None:
    server.status, server.body = status, {"error": "x", "message": f"answer {status}"}
    exit_code, _, stderr = run("get", "7", "--token", "t")
    assert exit_code == code
    assert stderr.strip() == f"error {status}: answer {status}"


def test_every_client_command_treats_a_rejected_token_as_invalid_input(
    server: FakeServer, tmp_path: Path
) -> None:
    server.status, server.body = 401, {"error": "unauthorized", "message": "unknown token"}
    spec = tmp_path / "job.yaml"
    spec.write_text("kind: Job\n")
    for args in (["submit", str(spec)], ["get", "1"], ["list"], ["cancel", "1"]):
        assert run(*args, "--token", "wrong")[0] == 2, args


def test_an_unreachable_server_exits_1(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(method: str, url: str, **_: Any) -> httpx.Response:
        raise httpx.ConnectError("connection refused")

    monkeypatch.setattr(httpx, "request", refuse)
    code, _, stderr = run("list", "--token", "t", "--server", "http://127.0.0.1:9")
    assert code == 1
    assert "cannot reach http://127.0.0.1:9" in stderr


def columns(line: str) -> list[int]:
    """Where each cell of a table line starts."""
    return [match.start() for match in re.finditer(r"\S+", line)]


def test_list_prints_a_header_and_aligned_columns(server: FakeServer) -> None:
    code, stdout, _ = run("list", "--token", "t")
    assert code == 0
    header, *rows = stdout.splitlines()
    assert header.split() == HEADER
    assert [row.split() for row in rows] == [
        ["7", "train-rack", "pending", "alice", "-", "0", "-", "-", "-", "-"],
        ["12", "a-much-longer-name", "admitted", "bob", "-", "10", "-", "-", "-", "-"],
    ]
    starts = columns(header)[1:]  # the ids are right-aligned, the rest start with their title
    for row in rows:
        assert columns(row)[1:] == starts, row


def test_get_shows_the_workload_its_pods_and_the_taint_hint(server: FakeServer) -> None:
    server.body = {
        **WORKLOADS[0],
        "placement": {
            "pods": [{"name": "train-rack-0", "node": "n1"}, {"name": "train-rack-1", "node": "n22"}]
        },
        "explanation": TAINTED,
    }
    code, stdout, _ = run("get", "7", "--token", "t")
    assert code == 0
    lines = stdout.splitlines()
    assert lines[0].split() == HEADER
    assert lines[1].split()[:9] == ["7", "train-rack", "pending", "alice", "-", "0", "-", "-", "-"]
    assert lines[1].endswith(TAINTED["reason"])
    assert lines[2].split() == ["POD", "NODE"]
    assert columns(lines[3]) == columns(lines[4]) == columns(lines[2])
    hint = lines[5:]
    assert (
        hint[0]
        == "every node has the taint nvidia.com/gpu=present:NoSchedule, which the pods do not tolerate"
    )
    assert "tolerations:" in hint
    assert hint[-1] == f"waiting: {TAINTED['reason']}"


def test_get_without_a_taint_hint_shows_only_the_reason(server: FakeServer) -> None:
    reason = {"reason": "does not fit", "totalNodes": 3, "excluded": {'resource "cpu"': 1}}
    server.body = {**WORKLOADS[0], "explanation": reason}
    _, stdout, _ = run("get", "7", "--token", "t")
    assert stdout.splitlines()[2:] == ["waiting: does not fit"]
