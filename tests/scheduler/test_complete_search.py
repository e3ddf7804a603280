"""The service's search setting: ``complete`` (its default) admits the OSMO 1/5/2 workflow the
faithful walk refuses, and says so in the admission event; ``faithful`` keeps it pending."""

from __future__ import annotations

from pathlib import Path

import yaml

from toposched.intake.cluster import load_cluster
from toposched.intake.parse import parse_documents
from toposched.model import Search
from toposched.scheduler import ManualClock, Scheduler, SchedulerConfig
from toposched.store import MemoryStore, WorkloadState

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "osmo"
CASE = "5-complete-search"


def service(config: SchedulerConfig) -> Scheduler:
    scheduler = Scheduler(MemoryStore(), ManualClock(1000.0), config)
    scheduler.import_cluster(load_cluster((EXAMPLES / f"{CASE}.cluster.yaml").read_text(encoding="utf-8")))
    pool = yaml.safe_load((EXAMPLES / f"{CASE}.pool.yaml").read_text(encoding="utf-8"))
    scheduler.put_pool(pool["name"], topology_keys=pool["topology_keys"], backend=pool["backend"])
    return scheduler


def submit(scheduler: Scheduler) -> int:
    workflow = (EXAMPLES / f"{CASE}.workflow.yaml").read_text(encoding="utf-8")
    record = scheduler.submit(parse_documents(workflow, source="workflow"), owner="alice")
    scheduler.cycle()
    return record.id


def test_the_service_searches_completely_by_default() -> None:
    assert SchedulerConfig().search is Search.COMPLETE
    scheduler = service(SchedulerConfig())
    wid = submit(scheduler)
    admitted = scheduler.get(wid)
    assert admitted.state is WorkloadState.ADMITTED
    racks = {n.name: n.labels["topology.kubernetes.io/rack"] for n in scheduler.store.get_nodes()}
    pairs = [racks[p["node"]] for p in admitted.placement["pods"] if p["name"].startswith("pair-")]
    assert pairs == ["rack-small", "rack-small"]
    events = [e for e in scheduler.store.list_events(workload=wid) if e.type == "admitted"]
    assert "complete search placed it" in events[-1].message


def test_faithful_service_leaves_the_workflow_pending_with_the_faithful_reason() -> None:
    scheduler = service(SchedulerConfig(search=Search.FAITHFUL))
    wid = submit(scheduler)
    record = scheduler.get(wid)
    assert record.state is WorkloadState.PENDING
    assert record.explanation is not None
    assert "workflow-group-c-pair" in record.explanation["reason"]
    assert record.explanation["note"] == "a complete search would place it (--search complete)"
