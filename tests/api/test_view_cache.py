"""The cluster view is built once per store version and viewer: polls of an unchanged cluster
answer from the kept view, with the same ETag; any store change or another viewer builds anew."""

from __future__ import annotations

from typing import Any

import pytest
from tests.api.conftest import ADMIN, ALICE, BOB, Api, bearer
from tests.api.specs import job_yaml

from toposched.api.routes import view as view_route


@pytest.fixture
def builds(monkeypatch: pytest.MonkeyPatch) -> list[str | None]:
    """The viewer of every view built (None: anonymous)."""
    seen: list[str | None] = []
    build = view_route.build_view

    def counted(*args: Any) -> dict[str, Any]:
        seen.append(args[-1].name if args[-1] is not None else None)
        return build(*args)

    monkeypatch.setattr(view_route, "build_view", counted)
    return seen


def test_polls_of_an_unchanged_cluster_build_the_view_once(api: Api, builds: list[str | None]) -> None:
    first = api.client.get("/v1/cluster/view", headers=bearer(ALICE))
    again = api.client.get("/v1/cluster/view", headers=bearer(ALICE))
    unchanged = api.client.get(
        "/v1/cluster/view", headers={**bearer(ALICE), "If-None-Match": first.headers["ETag"]}
    )
    assert builds == ["alice"]
    assert again.content == first.content and again.headers["ETag"] == first.headers["ETag"]
    assert unchanged.status_code == 304


def test_each_viewer_gets_a_view_of_their_own(api: Api, builds: list[str | None]) -> None:
    api.client.post("/v1/workloads", json={"spec": job_yaml("one", pods=1)}, headers=bearer(ALICE))
    api.scheduler.cycle()
    views = {
        who: api.client.get("/v1/cluster/view", headers=bearer(token)).json()
        for who, token in (("alice", ALICE), ("bob", BOB))
    }
    anonymous = api.client.get("/v1/cluster/view").json()
    assert builds == ["alice", "bob", None]
    assert [w["name"] for w in views["alice"]["workloads"]] == ["one"]
    assert [w["name"] for w in views["bob"]["workloads"]] == ["(another user)"]
    assert anonymous["workloads"] == []


def test_a_store_change_builds_the_view_anew(api: Api, builds: list[str | None]) -> None:
    first = api.client.get("/v1/cluster/view", headers=bearer(ALICE))
    api.client.patch(
        "/v1/nodes/b1-r1-n1", json={"unschedulable": True}, headers=bearer(ADMIN)
    ).raise_for_status()
    changed = api.client.get(
        "/v1/cluster/view", headers={**bearer(ALICE), "If-None-Match": first.headers["ETag"]}
    )
    assert builds == ["alice", "alice"]
    assert changed.status_code == 200 and changed.headers["ETag"] != first.headers["ETag"]
