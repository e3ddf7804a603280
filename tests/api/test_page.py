"""The web page renders the topology tree with node names; the view JSON shows who runs where."""

from __future__ import annotations

from tests.api.conftest import ALICE, BOB, Api, bearer
from tests.api.specs import job_yaml, node_names

from toposched.model import Node


def test_page_shows_zones_blocks_racks_and_nodes(api: Api) -> None:
    response = api.client.get("/")
    assert response.status_code == 200
    html = response.text
    assert response.headers["content-type"].startswith("text/html")
    for name in node_names():
        assert f"data-node='{name}'" in html
    for domain in ("z1", "b1", "b2", "b1-r1", "b2-r2"):
        assert f">{domain} <small>" in html
    assert "http://" not in html and "https://" not in html  # no external assets


def test_page_escapes_names(api: Api) -> None:
    odd = Node.create("n<b>1", labels={"topology.kubernetes.io/zone": "z<i>"})
    api.store.put_nodes([odd])
    html = api.client.get("/").text
    assert "data-node='n&lt;b&gt;1'" in html
    assert "z&lt;i&gt;" in html
    assert "n<b>1" not in html


def test_view_places_workloads_on_nodes_and_hides_other_users(api: Api) -> None:
    job = api.client.post("/v1/workloads", json={"spec": job_yaml("mine", pods=2)}, headers=bearer(ALICE))
    api.scheduler.cycle()
    view = api.client.get("/v1/cluster/view", headers=bearer(ALICE)).json()
    busy = {name: n["workloads"] for name, n in view["nodes"].items() if n["workloads"]}
    assert sum(w["pods"] for ws in busy.values() for w in ws) == 2
    assert all(w["id"] == job.json()["id"] for ws in busy.values() for w in ws)
    other = api.client.get("/v1/cluster/view", headers=bearer(BOB)).json()
    hidden = [w for n in other["nodes"].values() for w in n["workloads"]]
    assert hidden and all(w["id"] is None and w["name"] == "(another user)" for w in hidden)
    assert view["levels"] == [
        "topology.kubernetes.io/zone",
        "cloud.provider.com/topology-block",
        "cloud.provider.com/topology-rack",
    ]
