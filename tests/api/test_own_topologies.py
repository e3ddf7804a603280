"""A workload's own constraint stays with that workload (issue 22, item 1): a user's upstream
PodGroup keyed by a label no stored topology has is placed on a topology kept with the workload,
never stored for everyone, so the default of other submissions, other users' gangs and the
admin's topologies stay as they were, also after a restart on the same SQLite file."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient
from tests.api.conftest import ADMIN, ALICE, AUTH, BOB, bearer
from tests.api.specs import HOST, cluster_yaml, node_names

from toposched.api import Limits, create_app
from toposched.intake.cluster import load_cluster
from toposched.model.node import NODE_LEVEL
from toposched.scheduler import ManualClock, Scheduler
from toposched.store import SqliteStore

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "src" / "toposched" / "samples" / "cluster.yaml"
KUEUE_JOB = (ROOT / "examples" / "kueue" / "job-rack.yaml").read_text(encoding="utf-8")
KUBE_JOB = (ROOT / "examples" / "kube" / "job-one-rack.yaml").read_text(encoding="utf-8")
DOTTED, DASHED = "x.y/z", "x-y/z"  # one DNS name apart from the digest of the exact key


@contextmanager
def service(db: Path, cluster: str | None = None) -> Iterator[tuple[TestClient, Scheduler]]:
    """The app over a SQLite file (the cluster imported on first start); closed on exit."""
    store = SqliteStore(db)
    scheduler = Scheduler(store, ManualClock(1000.0))
    if cluster is not None:
        scheduler.import_cluster(load_cluster(cluster))
    app = create_app(scheduler, AUTH, limits=Limits(max_body_bytes=256 * 1024), run_loop=False)
    try:
        with TestClient(app, raise_server_exceptions=False) as client:
            yield client, scheduler
    finally:
        store.close()


def submit(client: TestClient, token: str, spec: str) -> dict[str, Any]:
    response = client.post("/v1/workloads", json={"spec": spec}, headers=bearer(token))
    assert response.status_code == 201, response.text
    body: dict[str, Any] = response.json()
    return body


def topology_names(client: TestClient) -> list[str]:
    return [t["name"] for t in client.get("/v1/topologies", headers=bearer(ADMIN)).json()]


def test_a_users_podgroup_key_does_not_change_what_other_submissions_use(tmp_path: Path) -> None:
    """The issue's steps: a Kueue job naming no topology, an upstream Job keyed by a label no
    topology has, then the Kueue job again (refused before: two topologies were defined)."""
    db = tmp_path / "toposched.db"
    with service(db, SAMPLE.read_text(encoding="utf-8")) as (client, _):
        submit(client, ALICE, KUEUE_JOB)
        kube = submit(client, ALICE, KUBE_JOB)
        assert kube["topology"] == "kube.all-nodes"
        every, own = kube["ownTopologies"]
        assert every == {"name": "kube.all-nodes", "levels": [NODE_LEVEL], "aliases": {}}
        assert own["name"].startswith("kube-example-com-rack-")
        assert own["levels"] == ["example.com/rack"]
        assert topology_names(client) == ["default"]
        for token in (ALICE, BOB):
            assert submit(client, token, KUEUE_JOB)["topology"] == "default"
        assert client.delete("/v1/topologies/nosuch", headers=bearer(ADMIN)).status_code == 404
    with service(db) as (client, _):  # restarted on the same file
        assert topology_names(client) == ["default"]
        assert submit(client, BOB, KUEUE_JOB)["topology"] == "default"
        again = client.get(f"/v1/workloads/{kube['id']}", headers=bearer(ALICE)).json()
        assert again["ownTopologies"] == kube["ownTopologies"]
        assert client.get(f"/v1/workloads/{kube['id']}", headers=bearer(BOB)).status_code == 404


def labelled_cluster() -> str:
    """The API tests' cluster (2 blocks x 2 racks x 4 nodes, 8 GPUs each) with two more labels:
    ``x.y/z`` = the node's block (8 nodes each), ``x-y/z`` = its number in the rack (n1..n4, 4
    nodes each, one per rack)."""
    text = cluster_yaml()
    for name in node_names():
        block, number = name.split("-")[0], name.split("-")[2]
        text = text.replace(f"{HOST}: {name}}}", f"{HOST}: {name}, {DOTTED}: {block}, {DASHED}: {number}}}")
    return text


def kube_job(name: str, key: str, pods: int) -> str:
    """An upstream Job (spec.scheduling): a gang of ``pods`` pods of 8 GPUs sharing a ``key`` value."""
    return f"""apiVersion: batch/v1
kind: Job
metadata: {{name: {name}, namespace: ml}}
spec:
  completionMode: Indexed
  parallelism: {pods}
  completions: {pods}
  scheduling:
    schedulingPolicy: {{gang: {{}}}}
    schedulingConstraints: {{topology: [{{key: {key}}}]}}
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: c
        image: busybox
        resources: {{requests: {{nvidia.com/gpu: '8'}}}}
"""


def label_values(client: TestClient, token: str, workload: int, key: str) -> set[str]:
    got = client.get(f"/v1/workloads/{workload}", headers=bearer(token)).json()
    assert got["state"] == "admitted", got["explanation"]
    labels = {n["name"]: n["labels"] for n in client.get("/v1/nodes", headers=bearer(token)).json()}
    return {labels[p["node"]][key] for p in got["placement"]["pods"]}


def test_keys_that_read_alike_constrain_each_users_gang_by_its_own_label(tmp_path: Path) -> None:
    db = tmp_path / "toposched.db"
    with service(db, labelled_cluster()) as (client, scheduler):
        dotted = submit(client, ALICE, kube_job("dotted", DOTTED, 8))
        dashed = submit(client, BOB, kube_job("dashed", DASHED, 2))
        assert dotted["ownTopologies"][1]["name"] != dashed["ownTopologies"][1]["name"]
        assert dashed["ownTopologies"][1]["levels"] == [DASHED]
        scheduler.cycle()
        assert len(label_values(client, ALICE, dotted["id"], DOTTED)) == 1  # one block
        assert len(label_values(client, BOB, dashed["id"], DASHED)) == 1  # one node number
        assert topology_names(client) == ["default"]
        client.delete(f"/v1/workloads/{dotted['id']}", headers=bearer(ALICE))
        client.delete(f"/v1/workloads/{dashed['id']}", headers=bearer(BOB))
        waiting = submit(client, BOB, kube_job("later", DASHED, 4))
    with service(db) as (client, scheduler):  # restarted: the pending gang keeps its own topology
        scheduler.cycle()
        assert len(label_values(client, BOB, waiting["id"], DASHED)) == 1
        assert submit(client, ALICE, KUEUE_JOB.replace("parallelism: 16", "parallelism: 1"))["topology"] == (
            "default"
        )
