"""``toposched pool put|list`` and ``submit --pool`` against the service's real app (in process):
an admin stores the same pool file ``place --pool`` reads; an OSMO workflow submitted with
``--pool NAME`` runs in that stored pool, and keeps it when more pools are stored later."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from tests.api.conftest import ADMIN, ALICE, AUTH
from typer.testing import CliRunner, Result

from toposched.api import Limits, create_app
from toposched.cli.main import app
from toposched.scheduler import ManualClock, Scheduler
from toposched.store import MemoryStore

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "osmo"
POOL = EXAMPLES / "3-multiple-nvl72-same-zone.pool.yaml"  # my-pool, four topology keys
WORKFLOW = EXAMPLES / "3-multiple-nvl72-same-zone.workflow.yaml"  # names no pool


@pytest.fixture
def scheduler(monkeypatch: pytest.MonkeyPatch) -> Iterator[Scheduler]:
    """The scheduler behind the service's app, which the client commands' ``httpx.request`` reach."""
    scheduler = Scheduler(MemoryStore(), ManualClock(1000.0))
    with TestClient(create_app(scheduler, AUTH, limits=Limits(), run_loop=False)) as client:

        def request(method: str, url: str, **kwargs: Any) -> httpx.Response:
            kwargs.pop("timeout", None)  # the client's; the test client refuses one
            return client.request(method, url, **kwargs)

        monkeypatch.setattr(httpx, "request", request)
        monkeypatch.delenv("TOPOSCHED_SERVER", raising=False)
        monkeypatch.delenv("TOPOSCHED_TOKEN", raising=False)
        yield scheduler


def toposched(*args: str | Path) -> Result:
    return CliRunner().invoke(app, [str(a) for a in args])


def other_pool(tmp_path: Path) -> Path:
    path = tmp_path / "other.pool.yaml"
    path.write_text(POOL.read_text(encoding="utf-8").replace("name: my-pool", "name: other-pool"))
    return path


def test_pool_put_stores_the_pool_file_and_list_shows_it(scheduler: Scheduler) -> None:
    stored = toposched("pool", "put", POOL, "--token", ADMIN)
    assert stored.exit_code == 0, stored.output
    assert stored.stdout == "stored pool my-pool (4 topology key(s))\n"

    listed = toposched("pool", "list", "--token", ADMIN, "-o", "json")
    assert listed.exit_code == 0, listed.output
    (pool,) = json.loads(listed.stdout)
    assert pool["name"] == "my-pool"
    assert [k["key"] for k in pool["topology_keys"]] == ["zone", "spine", "rack", "gpu-clique"]
    assert pool["backend"]["k8s_namespace"] == "osmo-workflows"

    table = toposched("pool", "list", "--token", ADMIN)
    assert [line.split() for line in table.stdout.splitlines()] == [
        ["NAME", "TOPOLOGY", "KEYS", "BACKEND"],
        ["my-pool", pool["topology"] or "(own)", "zone,spine,rack,gpu-clique", "my-backend"],
    ]
    assert toposched("pool", "list", "--token", ADMIN, "-o", "name").stdout == "pool/my-pool\n"


def test_pool_put_refuses_a_bad_pool_file_before_sending_it(scheduler: Scheduler, tmp_path: Path) -> None:
    bad = tmp_path / "bad.pool.yaml"
    text = POOL.read_text(encoding="utf-8")
    bad.write_text(text.replace("label: nvidia.com/gpu-clique", "label: no spaces"))

    refused = toposched("pool", "put", bad, "--token", ADMIN)

    assert refused.exit_code == 2
    assert "pool.topology_keys[gpu-clique].label: 'no spaces' (entry 3)" in refused.stderr
    assert scheduler.store.list_pools() == []


def test_a_user_cannot_store_a_pool(scheduler: Scheduler) -> None:
    refused = toposched("pool", "put", POOL, "--token", ALICE)
    assert refused.exit_code == 2
    assert scheduler.store.list_pools() == []


def test_submit_pool_runs_a_workflow_in_the_named_stored_pool(scheduler: Scheduler, tmp_path: Path) -> None:
    for pool in (POOL, other_pool(tmp_path)):
        assert toposched("pool", "put", pool, "--token", ADMIN).exit_code == 0

    # Two pools and a workflow naming none: which one is the user's choice.
    unnamed = toposched("submit", WORKFLOW, "--token", ALICE)
    assert unnamed.exit_code == 2
    assert "pool: no pool named" in unnamed.stderr

    submitted = toposched("submit", WORKFLOW, "--pool", "other-pool", "--token", ALICE, "-o", "json")
    assert submitted.exit_code == 0, submitted.output
    record = json.loads(submitted.stdout)
    assert record["pool"] == "other-pool"
    assert scheduler.compiled(record["id"]).pool == "other-pool"


def test_submit_pool_names_a_pool_that_is_not_stored(scheduler: Scheduler) -> None:
    assert toposched("pool", "put", POOL, "--token", ADMIN).exit_code == 0

    refused = toposched("submit", WORKFLOW, "--pool", "nope", "--token", ALICE)

    assert refused.exit_code == 2
    assert refused.stderr.startswith(
        "pool: no stored pool 'nope' (store it first (toposched pool put POOL.yaml); stored pools: my-pool)"
    )


def test_without_any_stored_pool_the_message_names_the_commands_that_exist(scheduler: Scheduler) -> None:
    refused = toposched("submit", WORKFLOW, "--token", ALICE)

    assert refused.exit_code == 2
    assert "toposched pool put POOL.yaml, then submit --pool NAME" in refused.stderr


def test_a_workflow_keeps_its_pool_when_more_pools_are_stored(scheduler: Scheduler, tmp_path: Path) -> None:
    assert toposched("pool", "put", POOL, "--token", ADMIN).exit_code == 0
    submitted = toposched("submit", WORKFLOW, "--token", ALICE, "-o", "json")  # the only pool
    assert submitted.exit_code == 0, submitted.output
    workload = json.loads(submitted.stdout)["id"]

    assert toposched("pool", "put", other_pool(tmp_path), "--token", ADMIN).exit_code == 0

    assert scheduler.compiled(workload).pool == "my-pool"
