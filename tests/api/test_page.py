"""The web page's files, the compact view JSON (nodes, domains, usage by toposched's workloads and
by pods it did not place, workloads), the node panel and a pending workload's explanation."""

from __future__ import annotations

from tests.api.conftest import ADMIN, ALICE, BOB, Api, bearer
from tests.api.specs import BLOCK, HOST, RACK, ZONE, job_yaml, node_names

from toposched.api.clusterview import natural
from toposched.intake.cluster import load_cluster
from toposched.model import Topology

FOREIGN_POD = """apiVersion: v1
kind: Pod
metadata: {name: notebook, namespace: lab}
spec:
  nodeName: b2-r2-n4
  containers:
  - {name: c, resources: {requests: {nvidia.com/gpu: "8"}}}
status: {phase: Running}
"""


def _import_foreign_pod(api: Api) -> None:
    node = api.store.get_node("b2-r2-n4")
    dump = "---\n".join([_node_yaml(node.name, dict(node.labels)), FOREIGN_POD])
    api.scheduler.import_cluster(load_cluster(dump))


def _node_yaml(name: str, labels: dict[str, str]) -> str:
    label_text = ", ".join(f"{k}: {v}" for k, v in labels.items())
    return f"""apiVersion: v1
kind: Node
metadata: {{name: {name}, labels: {{{label_text}}}}}
status:
  allocatable: {{cpu: '64', memory: 512Gi, nvidia.com/gpu: '8', pods: '110'}}
  conditions: [{{type: Ready, status: 'True'}}]
"""


def _nodes(view: dict[str, object]) -> dict[str, list[object]]:
    rows = view["nodes"]
    assert isinstance(rows, list)
    return {row[0]: row for row in rows}


def test_page_is_static_files_with_no_external_assets(api: Api) -> None:
    response = api.client.get("/")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/html")
    for path, media in (("/static/app.js", "text/javascript"), ("/static/app.css", "text/css")):
        asset = api.client.get(path)
        assert asset.status_code == 200 and asset.headers["content-type"].startswith(media)
        assert "http://" not in asset.text and "https://" not in asset.text
    assert "http://" not in response.text and "https://" not in response.text
    assert api.client.get("/static/other.js").status_code == 404


def test_docs_pages_are_gone_and_the_schema_stays(api: Api) -> None:
    assert api.client.get("/docs").status_code == 404
    assert api.client.get("/redoc").status_code == 404
    assert "/v1/workloads/{workload_id}/explanation" in api.client.get("/openapi.json").json()["paths"]


def test_view_lists_domains_and_nodes_compactly(api: Api) -> None:
    view = api.client.get("/v1/cluster/view", headers=bearer(ALICE)).json()
    assert view["levels"] == [ZONE, BLOCK, RACK]
    assert view["resource"] == "nvidia.com/gpu"
    domains = view["domains"]
    paths = []
    for level, value, parent in domains:
        paths.append((*(paths[parent] if parent >= 0 else ()), value))
        assert len(paths[-1]) == level + 1
    assert ("z1", "b2", "b2-r1") in paths and ("z1",) in paths
    rows = _nodes(view)
    assert sorted(rows) == sorted(node_names())
    _, domain, capacity, booked, foreign, flags = rows["b1-r2-n3"]
    assert (paths[domain], capacity, booked, foreign, flags) == (("z1", "b1", "b1-r2"), 8, 0, 0, 0)


def test_view_counts_pods_toposched_did_not_place(api: Api) -> None:
    _import_foreign_pod(api)
    rows = _nodes(api.client.get("/v1/cluster/view").json())
    assert rows["b2-r2-n4"][3:5] == [0, 8]


def test_view_flags_not_ready_cordoned_and_tainted_nodes(api: Api) -> None:
    api.scheduler.set_node_ready("b1-r1-n1", False)
    api.scheduler.cordon("b1-r1-n2")
    patch = {"taints": [{"key": "gpu", "value": "bad", "effect": "NoSchedule"}]}
    assert api.client.patch("/v1/nodes/b1-r1-n3", json=patch, headers=bearer(ADMIN)).status_code == 200
    rows = _nodes(api.client.get("/v1/cluster/view").json())
    assert [rows[f"b1-r1-n{i}"][5] for i in (1, 2, 3, 4)] == [1, 2, 4, 0]


def test_view_places_workloads_on_nodes_and_hides_other_users(api: Api) -> None:
    mine = api.client.post("/v1/workloads", json={"spec": job_yaml("mine", pods=2)}, headers=bearer(ALICE))
    api.client.post("/v1/workloads", json={"spec": job_yaml("huge", pods=9)}, headers=bearer(ALICE))
    api.scheduler.cycle()
    view = api.client.get("/v1/cluster/view", headers=bearer(ALICE)).json()
    by_name = {w["name"]: w for w in view["workloads"]}
    placed = by_name["mine"]
    assert placed["id"] == mine.json()["id"] and placed["state"] == "admitted"
    assert sum(pods for _, pods in placed["nodes"]) == 2
    assert all(view["nodes"][i][3] == 8 for i, _ in placed["nodes"])  # 2 pods of 4 GPUs each
    assert by_name["huge"]["state"] == "pending" and by_name["huge"]["reason"]
    other = api.client.get("/v1/cluster/view", headers=bearer(BOB)).json()
    assert [(w["id"], w["name"], w["state"]) for w in other["workloads"]] == [
        (None, "(another user)", "admitted")
    ]
    anonymous = api.client.get("/v1/cluster/view").json()
    assert anonymous["workloads"] == [] and len(anonymous["nodes"]) == len(node_names())


def test_view_etag_answers_304_until_something_changes(api: Api) -> None:
    first = api.client.get("/v1/cluster/view", headers=bearer(ALICE))
    etag = first.headers["ETag"]
    again = api.client.get("/v1/cluster/view", headers={**bearer(ALICE), "If-None-Match": etag})
    assert again.status_code == 304 and again.content == b""
    api.client.post("/v1/workloads", json={"spec": job_yaml("one", pods=1)}, headers=bearer(ALICE))
    api.scheduler.cycle()
    changed = api.client.get("/v1/cluster/view", headers={**bearer(ALICE), "If-None-Match": etag})
    assert changed.status_code == 200 and changed.headers["ETag"] != etag


def test_view_of_a_hosts_only_topology_has_no_domains(api: Api) -> None:
    api.store.put_topology(Topology.create("hosts", [HOST]))
    view = api.client.get("/v1/cluster/view?topology=hosts", headers=bearer(ALICE)).json()
    assert view["topology"] == "hosts" and view["topologies"] == ["default", "hosts"]
    assert view["levels"] == [] and view["domains"] == []
    assert {row[1] for row in view["nodes"]} == {-1}


def test_view_orders_numbered_names_as_people_do() -> None:
    assert sorted(["r10", "r2", "r1-n10", "r1-n9"], key=natural) == ["r1-n9", "r1-n10", "r2", "r10"]


def test_view_of_an_unknown_topology_is_404(api: Api) -> None:
    assert api.client.get("/v1/cluster/view?topology=nope", headers=bearer(ALICE)).status_code == 404


def test_node_panel_lists_managed_and_foreign_pods(api: Api) -> None:
    _import_foreign_pod(api)
    api.client.post("/v1/workloads", json={"spec": job_yaml("mine", pods=2)}, headers=bearer(ALICE))
    api.scheduler.cycle()
    view = api.client.get("/v1/cluster/view", headers=bearer(ALICE)).json()
    node = view["nodes"][view["workloads"][0]["nodes"][0][0]][0]
    panel = api.client.get(f"/v1/cluster/view/nodes/{node}", headers=bearer(ALICE)).json()
    assert panel["workloads"][0]["name"] == "mine" and panel["workloads"][0]["count"] == 2
    assert panel["ready"] is True and panel["taints"] == []
    busy = api.client.get("/v1/cluster/view/nodes/b2-r2-n4", headers=bearer(BOB)).json()
    assert busy["foreignPods"] == [
        {"namespace": "lab", "name": "notebook", "owner": "", "requests": {"nvidia.com/gpu": "8"}}
    ]
    assert api.client.get("/v1/cluster/view/nodes/b2-r2-n4").status_code == 401
    assert api.client.get("/v1/cluster/view/nodes/nope", headers=bearer(BOB)).status_code == 404


def test_explanation_of_a_pending_workload_names_the_workloads_to_end(api: Api) -> None:
    # 16 nodes of 8 GPUs; a whole-rack job (4 pods x 8 GPUs) on every rack, then one more waits.
    held = [
        api.client.post(
            "/v1/workloads", json={"spec": job_yaml(f"rack{i}", pods=4, gpus=8)}, headers=bearer(ALICE)
        )
        for i in range(4)
    ]
    waiting = api.client.post(
        "/v1/workloads", json={"spec": job_yaml("late", pods=4, gpus=8)}, headers=bearer(ALICE)
    )
    api.scheduler.cycle()
    wid = waiting.json()["id"]
    answer = api.client.get(f"/v1/workloads/{wid}/explanation", headers=bearer(ALICE))
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["level"] == RACK and body["candidates"][0]["needed"] == 4
    ended = {name for s in body["suggestions"] for name in s["endedWorkloads"]}
    assert ended and ended <= {f"workloads/{w.json()['id']}" for w in held}
    hidden = api.client.get(f"/v1/workloads/{wid}/explanation", headers=bearer(ADMIN)).json()
    assert {n for s in hidden["suggestions"] for n in s["endedWorkloads"]} == ended
    assert api.client.get(f"/v1/workloads/{wid}/explanation", headers=bearer(BOB)).status_code == 404


def test_explanation_hides_other_users_workloads(api: Api) -> None:
    for i in range(4):
        api.client.post(
            "/v1/workloads", json={"spec": job_yaml(f"r{i}", pods=4, gpus=8)}, headers=bearer(BOB)
        )
    waiting = api.client.post(
        "/v1/workloads", json={"spec": job_yaml("late", pods=4, gpus=8)}, headers=bearer(ALICE)
    )
    api.scheduler.cycle()
    body = api.client.get(f"/v1/workloads/{waiting.json()['id']}/explanation", headers=bearer(ALICE)).json()
    ended = [n for s in body["suggestions"] for n in s["endedWorkloads"]]
    assert ended and all(n.startswith("another-user/") for n in ended)


def test_explanation_needs_a_pending_workload(api: Api) -> None:
    placed = api.client.post("/v1/workloads", json={"spec": job_yaml("fits", pods=1)}, headers=bearer(ALICE))
    api.scheduler.cycle()
    conflict = api.client.get(f"/v1/workloads/{placed.json()['id']}/explanation", headers=bearer(ALICE))
    assert conflict.status_code == 409 and "pending" in conflict.json()["message"]
    assert api.client.get("/v1/workloads/999/explanation", headers=bearer(ALICE)).status_code == 404
