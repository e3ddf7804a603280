"""``toposched queue put|list|show`` against the service's real app (in process): an admin puts
queues from a file (parents first), anyone lists and shows them with their usage in table, JSON
or YAML; a bad file is refused before anything is sent, naming the field (exit 2)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml
from fastapi.testclient import TestClient
from tests.api.conftest import ADMIN, ALICE, AUTH
from typer.testing import CliRunner, Result

from toposched.api import Limits, create_app
from toposched.cli.main import app
from toposched.scheduler import ManualClock, Scheduler
from toposched.store import MemoryStore

QUEUES = """\
- name: org
  guaranteed: {nvidia.com/gpu: 16}
- name: team-a
  parent: org
  guaranteed: {nvidia.com/gpu: 8}
  limit: {nvidia.com/gpu: 12}
  weight: 2
  localQueues: [team-a/default]
"""


@pytest.fixture
def service(monkeypatch: pytest.MonkeyPatch) -> Iterator[MemoryStore]:
    store = MemoryStore()
    scheduler = Scheduler(store, ManualClock(1000.0))
    with TestClient(create_app(scheduler, AUTH, limits=Limits(), run_loop=False)) as client:

        def request(method: str, url: str, **kwargs: Any) -> httpx.Response:
            kwargs.pop("timeout", None)
            return client.request(method, url, **kwargs)

        monkeypatch.setattr(httpx, "request", request)
        monkeypatch.delenv("TOPOSCHED_SERVER", raising=False)
        monkeypatch.delenv("TOPOSCHED_TOKEN", raising=False)
        yield store


def toposched(*args: str) -> Result:
    return CliRunner().invoke(app, list(args))


def test_put_list_show(service: MemoryStore, tmp_path: Path) -> None:
    path = tmp_path / "queues.yaml"
    path.write_text(QUEUES)
    put = toposched("queue", "put", str(path), "--token", ADMIN)
    assert put.exit_code == 0, put.output
    assert [q.name for q in service.list_queues()] == ["org", "team-a"]
    listed = toposched("queue", "list", "--token", ALICE)
    assert listed.exit_code == 0, listed.output
    lines = listed.stdout.splitlines()
    assert lines[0].split() == [
        "NAME",
        "PARENT",
        "WEIGHT",
        "GUARANTEED",
        "LIMIT",
        "USAGE",
        "BORROWED",
        "SHARE",
        "PENDING",
        "ADMITTED",
    ]
    assert lines[3].split() == [
        "team-a",
        "org",
        "2.0",
        "nvidia.com/gpu=8",
        "nvidia.com/gpu=12",
        "-",
        "-",
        "0.0",
        "0",
        "0",
    ]
    as_json = json.loads(toposched("queue", "list", "-o", "json", "--token", ALICE).stdout)
    assert [q["name"] for q in as_json["queues"]] == ["default", "org", "team-a"]
    shown = yaml.safe_load(toposched("queue", "show", "team-a", "-o", "yaml", "--token", ALICE).stdout)
    assert shown["limit"] == {"nvidia.com/gpu": "12"} and shown["localQueues"] == ["team-a/default"]
    table = toposched("queue", "show", "team-a", "--token", ALICE).stdout
    assert "parent: org" in table and "quota: nvidia.com/gpu=8" in table


def test_a_bad_file_is_refused_before_sending(service: MemoryStore, tmp_path: Path) -> None:
    path = tmp_path / "queues.yaml"
    path.write_text("- name: q\n  weight: -1\n- name: r\n  preemption: sometimes\n")
    result = toposched("queue", "put", str(path), "--token", ADMIN)
    assert result.exit_code == 2
    assert "queue[0].weight" in result.stderr and "queue[1].preemption" not in result.stderr
    assert service.list_queues() == []


def test_users_may_not_put_and_unknown_queues_are_not_found(service: MemoryStore, tmp_path: Path) -> None:
    path = tmp_path / "q.yaml"
    path.write_text("name: q\n")
    assert toposched("queue", "put", str(path), "--token", ALICE).exit_code != 0
    assert toposched("queue", "show", "nope", "--token", ALICE).exit_code != 0
    assert toposched("queue", "list", "-o", "xml", "--token", ALICE).exit_code == 2
