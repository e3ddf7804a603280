"""``GET /v1/defrag``: the service's own workloads move whole, under their own constraints;
foreign pods move one by one; admins only."""

from __future__ import annotations

from dataclasses import replace

from tests.api.conftest import ADMIN, ALICE, Api, bearer
from tests.api.specs import cluster_yaml, job_yaml

from toposched.intake.cluster import load_cluster
from toposched.model import Resources, RunningPod

GPUS = Resources.parse({"nvidia.com/gpu": "8"})


def fragment(api: Api) -> int:
    """Three racks of 4 nodes x 8 GPUs: rack r1 holds an own 2-pod rack-required job, r2 three
    foreign pods and r3 two (of two owners). No rack is free."""
    cluster = load_cluster(cluster_yaml(blocks=1, racks=3))
    api.scheduler.import_cluster(cluster, replace=True)
    job = api.client.post(
        "/v1/workloads", json={"spec": job_yaml("train", pods=2, gpus=8)}, headers=bearer(ALICE)
    )
    api.scheduler.cycle()
    foreign = [RunningPod(f"web-{n}", "serving", f"b1-r2-n{n}", GPUS, owner=f"web-{n}") for n in (1, 2, 3)]
    foreign += [RunningPod(f"etl-{n}", "batch", f"b1-r3-n{n}", GPUS, owner=f"etl-{n}") for n in (1, 2)]
    api.scheduler.import_cluster(replace(cluster, pods=tuple(foreign)))
    workload_id: int = job.json()["id"]
    assert api.client.get(f"/v1/workloads/{workload_id}", headers=bearer(ALICE)).json()["state"] == "admitted"
    return workload_id


def test_own_workload_moves_whole_into_one_rack(api: Api) -> None:
    workload_id = fragment(api)
    answer = api.client.get("/v1/defrag", params={"level": "rack", "count": 1}, headers=bearer(ADMIN))
    assert answer.status_code == 200, answer.text
    plan = answer.json()
    assert plan["complete"] and plan["freed"] == ["z1/b1/b1-r1"]
    (move,) = plan["moves"]
    assert move["workload"] == f"workloads/{workload_id}"
    targets = {pod["to"] for pod in move["pods"]}
    assert len(move["pods"]) == 2 and all(
        t.startswith("b1-r3-") for t in targets
    )  # its rack requirement holds


def test_asking_for_too_many_says_why_and_only_admins_may_ask(api: Api) -> None:
    fragment(api)
    plan = api.client.get("/v1/defrag", params={"level": "rack", "count": 3}, headers=bearer(ADMIN)).json()
    assert not plan["complete"] and plan["reason"]
    assert api.client.get("/v1/defrag", params={"level": "rack"}, headers=bearer(ALICE)).status_code == 403
    unknown = api.client.get("/v1/defrag", params={"level": "spine"}, headers=bearer(ADMIN))
    assert unknown.status_code in (400, 422) and "spine" in unknown.text
