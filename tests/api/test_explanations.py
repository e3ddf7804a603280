"""Explanations are bounded (issue 22, item 4): one user has one running at a time (a second
gets 429 with Retry-After), the service runs at most ``Limits.explanations_total`` at once, and
an answer is kept per workload and viewer until the store changes."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from tests.api.conftest import ADMIN, ALICE, AUTH, BOB, Api, bearer
from tests.api.specs import cluster_yaml, job_yaml

from toposched.api import Limits, create_app
from toposched.intake.cluster import load_cluster
from toposched.model import Explanation
from toposched.scheduler import ManualClock, Scheduler
from toposched.store import MemoryStore


def waiting_workloads(api: Api, *tokens: str) -> list[int]:
    """Every rack full, then one more whole-rack job per token: each waits."""
    for i in range(4):
        api.client.post(
            "/v1/workloads", json={"spec": job_yaml(f"rack{i}", pods=4, gpus=8)}, headers=bearer(ADMIN)
        )
    ids = [
        api.client.post(
            "/v1/workloads", json={"spec": job_yaml("late", pods=4, gpus=8)}, headers=bearer(t)
        ).json()["id"]
        for t in tokens
    ]
    api.scheduler.cycle()
    return ids


@pytest.fixture
def counted(api: Api, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The workload of every explanation the scheduler computes."""
    seen: list[int] = []
    real = api.scheduler.explain

    def explain(workload_id: int, *, viewer: str | None = None) -> Explanation:
        seen.append(workload_id)
        return real(workload_id, viewer=viewer)

    monkeypatch.setattr(api.scheduler, "explain", explain)
    return seen


def test_an_answer_is_kept_until_the_store_changes(api: Api, counted: list[int]) -> None:
    (wid,) = waiting_workloads(api, ALICE)
    path = f"/v1/workloads/{wid}/explanation"
    first = api.client.get(path, headers=bearer(ALICE))
    again = api.client.get(path, headers=bearer(ALICE))
    assert first.status_code == again.status_code == 200 and first.json() == again.json()
    assert counted == [wid]
    assert api.client.get(path, headers=bearer(ADMIN)).status_code == 200  # another viewer: its own answer
    assert counted == [wid, wid]
    assert api.client.get(path, headers=bearer(BOB)).status_code == 404  # never from the cache
    api.client.patch("/v1/nodes/b1-r1-n1", json={"unschedulable": True}, headers=bearer(ADMIN))
    assert api.client.get(path, headers=bearer(ALICE)).status_code == 200
    assert counted == [wid, wid, wid]


@pytest.fixture
def blocked() -> Iterator[tuple[TestClient, Scheduler, threading.Event, threading.Semaphore]]:
    """The app with explanations that wait for ``release`` once started (``started`` counts them)."""
    store = MemoryStore()
    scheduler = Scheduler(store, ManualClock(1000.0))
    scheduler.import_cluster(load_cluster(cluster_yaml()))
    release, started = threading.Event(), threading.Semaphore(0)
    real = scheduler.explain

    def explain(workload_id: int, *, viewer: str | None = None) -> Explanation:
        started.release()
        assert release.wait(30), "the test never released the explanation"
        return real(workload_id, viewer=viewer)

    scheduler.explain = explain  # a slow explanation, on demand
    app = create_app(
        scheduler, AUTH, limits=Limits(explanations_per_user=1, explanations_total=2), run_loop=False
    )
    with TestClient(app, raise_server_exceptions=False) as client:
        yield client, scheduler, release, started
        release.set()


def test_one_running_explanation_per_user_and_two_in_all(
    blocked: tuple[TestClient, Scheduler, threading.Event, threading.Semaphore],
) -> None:
    client, scheduler, release, started = blocked
    api = Api(client, scheduler, scheduler.store)
    alice, bob, admin = waiting_workloads(api, ALICE, BOB, ADMIN)
    answers: dict[str, Any] = {}

    def ask(who: str, token: str, wid: int) -> None:
        answers[who] = client.get(f"/v1/workloads/{wid}/explanation", headers=bearer(token))

    first = threading.Thread(target=ask, args=("alice", ALICE, alice))
    first.start()
    assert started.acquire(timeout=30)  # alice's explanation runs
    second = client.get(f"/v1/workloads/{alice}/explanation", headers=bearer(ALICE))
    assert second.status_code == 429, second.text
    assert second.headers["Retry-After"] == "5"  # the explanation's time bound
    assert second.json()["error"] == "busy" and second.json()["limit"] == "explanations per user"
    other = threading.Thread(target=ask, args=("bob", BOB, bob))
    other.start()
    assert started.acquire(timeout=30)  # bob's runs beside alice's
    third = client.get(f"/v1/workloads/{admin}/explanation", headers=bearer(ADMIN))
    assert third.status_code == 429 and third.json()["limit"] == "explanations at once"
    release.set()
    first.join(30)
    other.join(30)
    assert answers["alice"].status_code == answers["bob"].status_code == 200
    assert client.get(f"/v1/workloads/{alice}/explanation", headers=bearer(ALICE)).status_code == 200
