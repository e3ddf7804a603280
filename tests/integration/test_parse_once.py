"""Input is parsed once, at the edge: a submission's YAML is parsed exactly once on its way through
the API into the store, and not again when the loop admits it; ``toposched place`` parses each
file it reads once. Every YAML parser entry point is counted, not only the project's own."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from fastapi.testclient import TestClient

from toposched.api import AuthConfig, Limits, create_app
from toposched.intake.cluster import load_cluster
from toposched.intake.parse import yaml_events
from toposched.scheduler import ManualClock, Scheduler
from toposched.store import MemoryStore, WorkloadState

from .conftest import EXAMPLES, Invoke

REPO = EXAMPLES.parent
TOKEN = "alice-token-0123456789"
AUTH = AuthConfig.from_mapping({"tokens": [{"token": TOKEN, "user": "alice", "role": "admin"}]})
OSMO = "osmo/3-multiple-nvl72-same-zone"

# front end -> (workload, cluster dump, extra topology file)
CASES = {
    "kueue": ("examples/kueue/job-rack.yaml", "src/toposched/samples/cluster.yaml", None),
    "kai": ("examples/kai/tfjob-segments.yaml", "examples/kai/tfjob-cluster.yaml", None),
    "osmo": (f"examples/{OSMO}.workflow.yaml", f"examples/{OSMO}.cluster.yaml", None),
    "grove": (
        "examples/grove/llama-70b-h100.yaml",
        "examples/grove/cluster.yaml",
        "examples/grove/topologies.yaml",
    ),
}


@pytest.fixture
def parses(monkeypatch: pytest.MonkeyPatch) -> Iterator[Counter[str]]:
    """How often each YAML parser entry point ran."""
    counts: Counter[str] = Counter()

    class Counting(yaml_events._Loader):  # type: ignore[misc,name-defined]  # the loader under count
        def __init__(self, stream: Any) -> None:
            counts["toposched.intake.parse"] += 1
            super().__init__(stream)

    monkeypatch.setattr(yaml_events, "_Loader", Counting)
    for name in ("load", "load_all", "safe_load", "safe_load_all", "compose", "compose_all", "parse"):
        original = getattr(yaml, name)

        def counted(*args: Any, _name: str = name, _original: Any = original, **kwargs: Any) -> Any:
            counts[f"yaml.{_name}"] += 1
            return _original(*args, **kwargs)

        monkeypatch.setattr(yaml, name, counted)
    yield counts


def service(front_end: str) -> Scheduler:
    _, dump, topologies = CASES[front_end]
    scheduler = Scheduler(MemoryStore(), ManualClock(1000.0))
    cluster = load_cluster((REPO / dump).read_text(encoding="utf-8"))
    if topologies is not None:
        for topology in load_cluster((REPO / topologies).read_text(encoding="utf-8")).topologies:
            cluster = cluster.with_topology(topology)
    scheduler.import_cluster(cluster)
    if front_end == "osmo":
        pool = yaml.safe_load((EXAMPLES / f"{OSMO}.pool.yaml").read_text(encoding="utf-8"))
        scheduler.put_pool(pool["name"], topology_keys=pool["topology_keys"], backend=pool["backend"])
    return scheduler


@pytest.mark.parametrize("front_end", sorted(CASES))
def test_a_submission_is_parsed_once(front_end: str, parses: Counter[str]) -> None:
    scheduler = service(front_end)
    app = create_app(scheduler, AUTH, limits=Limits(), run_loop=False)
    spec = (REPO / CASES[front_end][0]).read_text(encoding="utf-8")
    with TestClient(app, raise_server_exceptions=False) as client:
        parses.clear()
        answer = client.post(
            "/v1/workloads", json={"spec": spec}, headers={"Authorization": f"Bearer {TOKEN}"}
        )
        assert answer.status_code == 201, answer.text
        assert parses == Counter({"toposched.intake.parse": 1})
        scheduler.cycle()
        assert scheduler.get(answer.json()["id"]).state is WorkloadState.ADMITTED
        assert parses == Counter({"toposched.intake.parse": 1})  # the loop parses nothing


def test_place_parses_each_file_once(invoke: Invoke, parses: Counter[str], tmp_path: Path) -> None:
    job, dump, _ = CASES["kueue"]
    run = invoke("place", REPO / job, "--cluster", REPO / dump, "-o", "json")
    assert run.exit_code == 0, run.stderr
    assert parses == Counter({"toposched.intake.parse": 2})  # the job and the cluster file
