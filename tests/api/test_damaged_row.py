"""One damaged workload row (invalid placement JSON) is reported and skipped: the others keep
scheduling and the cluster view still answers."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from fastapi.testclient import TestClient
from tests.api.conftest import ADMIN, ALICE, AUTH, bearer
from tests.api.specs import cluster_yaml, job_yaml

from toposched.api import Limits, create_app
from toposched.intake.cluster import load_cluster
from toposched.scheduler import ManualClock, Scheduler
from toposched.store import SqliteStore


def test_a_damaged_row_is_marked_broken_and_the_view_still_answers(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    store = SqliteStore(db)
    scheduler = Scheduler(store, ManualClock(1000.0))
    scheduler.import_cluster(load_cluster(cluster_yaml()))
    app = create_app(scheduler, AUTH, limits=Limits(), run_loop=False)
    with TestClient(app, raise_server_exceptions=False) as client:
        first = client.post("/v1/workloads", json={"spec": job_yaml("a", pods=2)}, headers=bearer(ALICE))
        damaged = first.json()["id"]
        scheduler.cycle()
        with sqlite3.connect(db) as raw:
            raw.execute("UPDATE workloads SET placement = '[1, 2' WHERE id = ?", (damaged,))
        second = client.post("/v1/workloads", json={"spec": job_yaml("b", pods=2)}, headers=bearer(ALICE))
        assert scheduler.cycle().admitted == (second.json()["id"],)
        view = client.get("/v1/cluster/view", headers=bearer(ADMIN))
        assert view.status_code == 200, view.text
        got = client.get(f"/v1/workloads/{damaged}", headers=bearer(ALICE)).json()
        assert got["explanation"]["broken"] is True
        health = client.get("/v1/health").json()
        assert health["loop"]["broken"] == 1
        assert health["loop"]["lastCycleAt"] == 1000.0
    store.close()


def test_health_is_503_with_the_loop_facts_when_the_store_is_gone(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "s.db")
    scheduler = Scheduler(store, ManualClock(1000.0))
    app = create_app(scheduler, AUTH, limits=Limits(), run_loop=False)
    with TestClient(app, raise_server_exceptions=False) as client:
        scheduler.cycle()
        store.close()
        response = client.get("/v1/health")
    assert response.status_code == 503
    assert response.json() == {
        "status": "unavailable",
        "store": "unavailable",
        "loop": {"lastCycleAt": 1000.0, "lastError": None, "lastErrorAt": None, "broken": 0},
    }
