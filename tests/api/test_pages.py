"""Cursor pagination: workloads page by id (``after``), events by seq (``since``); a full page
links to the next; the owner filter and the limit are applied by the store's query."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from tests.api.conftest import ADMIN, ALICE, BOB, Api, bearer
from tests.api.specs import job_yaml

from toposched.store import SqliteStore, WorkloadRecord, sqlite_workloads


def submit(api: Api, token: str, name: str) -> int:
    response = api.client.post("/v1/workloads", json={"spec": job_yaml(name)}, headers=bearer(token))
    assert response.status_code == 201, response.text
    workload: int = response.json()["id"]
    return workload


def walk(client: TestClient, url: str, token: str) -> tuple[list[dict[str, object]], int]:
    """Every item over the pages, following ``Link: rel=next``, and how many pages it took."""
    items: list[dict[str, object]] = []
    pages = 0
    next_url: str | None = url
    while next_url is not None and pages < 50:
        response = client.get(next_url, headers=bearer(token))
        assert response.status_code == 200, response.text
        items += response.json()
        pages += 1
        found = re.match(r'<([^>]+)>; rel="next"', response.headers.get("link", ""))
        next_url = found.group(1) if found else None
    return items, pages


def test_workloads_page_by_id_with_the_owner_filter(api: Api) -> None:
    mine = [submit(api, ALICE if i % 3 else BOB, f"w{i}") for i in range(8)]
    alices = [w for i, w in enumerate(mine) if i % 3]
    items, pages = walk(api.client, "/v1/workloads?limit=2", ALICE)
    assert [w["id"] for w in items] == alices
    assert pages == 3  # 2 + 2 + 1: the last, partial page has no next link
    after = api.client.get(f"/v1/workloads?after={alices[2]}", headers=bearer(ALICE)).json()
    assert [w["id"] for w in after] == alices[3:]
    pending, _ = walk(api.client, "/v1/workloads?limit=3&state=pending", ADMIN)
    assert [w["id"] for w in pending] == mine


def test_a_users_events_are_filtered_and_paged(api: Api) -> None:
    alices = {submit(api, ALICE, f"a{i}") for i in range(3)}
    bobs = {submit(api, BOB, f"b{i}") for i in range(3)}
    events, pages = walk(api.client, "/v1/events?limit=2", BOB)
    assert {e["workload"] for e in events} == bobs
    assert pages >= 2
    everything, _ = walk(api.client, "/v1/events?limit=4", ADMIN)
    assert alices | bobs <= {e["workload"] for e in everything}


def test_the_limit_is_applied_in_the_query(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = SqliteStore(tmp_path / "s.db")
    for i in range(30):
        store.submit_workload(WorkloadRecord(name=f"w{i}", kind="Job", owner="a" if i % 2 else "b", spec=""))
    decoded = []
    real = sqlite_workloads.workload_from_row

    def counting(row: tuple[object, ...]) -> WorkloadRecord:
        decoded.append(row[0])
        return real(row)

    monkeypatch.setattr(sqlite_workloads, "workload_from_row", counting)
    page = store.page_workloads(owner="a", after=4, limit=3)
    assert [w.id for w in page] == [6, 8, 10]
    assert decoded == [6, 8, 10]  # only the page's rows were read
    store.close()
