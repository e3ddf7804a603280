"""What a workload record keeps of its spec: the parsed documents and the front end that read
them, so a restarted scheduler compiles it as at submission; and the topologies a spec brings,
kept with its workload."""

from __future__ import annotations

from pathlib import Path

import pytest

from builders import HOST, RACK, node
from toposched.intake.cluster import load_cluster
from toposched.intake.parse import parse_documents
from toposched.model import Cluster, SpecError, Topology
from toposched.scheduler import ManualClock, Scheduler
from toposched.scheduler.state import read_spec
from toposched.store import SqliteStore, WorkloadRecord, WorkloadState

GROVE = Path(__file__).resolve().parents[2] / "examples" / "grove"
JOB = """apiVersion: batch/v1
kind: Job
metadata:
  name: both
  labels: {kai.scheduler/queue: q}
spec:
  parallelism: 2
  completions: 2
  template:
    metadata:
      annotations: {kueue.x-k8s.io/podset-required-topology: example.com/rack}
    spec:
      containers: [{name: main, image: busybox, resources: {requests: {cpu: "1"}}}]
"""


def service(db: Path) -> tuple[Scheduler, SqliteStore]:
    store = SqliteStore(db)
    return Scheduler(store, ManualClock(1000.0)), store


def test_the_front_end_chosen_at_submission_is_used_after_a_restart(tmp_path: Path) -> None:
    """The Job carries a KAI queue label, but was submitted for Kueue: it stays a Kueue gang."""
    first, store = service(tmp_path / "s.db")
    nodes = [node(f"n{i}").at(rack=f"r{i // 2}").alloc(cpu=4).build() for i in range(4)]
    first.import_cluster(Cluster.create(nodes, [], [Topology.create("default", [RACK, HOST])]))
    record = first.submit(parse_documents(JOB, source="spec"), owner="alice", kind="kueue")
    store.close()
    second, store = service(tmp_path / "s.db")
    try:
        stored = second.get(record.id)
        assert read_spec(stored)[0] == "kueue"
        second.cycle()
        placement = second.get(record.id).placement
        assert set(placement["assignments"]) == {"main"}  # Kueue's pod set, not a KAI PodGroup
    finally:
        store.close()


def test_a_spec_not_stored_as_json_is_a_spec_error() -> None:
    record = WorkloadRecord(name="old", kind="Job", owner="alice", spec="kind: Job\n", id=7)
    with pytest.raises(SpecError, match="submit its spec again"):
        read_spec(record)


def test_a_cluster_topology_in_the_podcliquesets_file_is_kept_with_the_workload(tmp_path: Path) -> None:
    """The file's ClusterTopology is the workload's own: never stored for everyone, and still
    the workload's after a restart."""
    scheduler, store = service(tmp_path / "s.db")
    try:
        scheduler.import_cluster(load_cluster((GROVE / "cluster.yaml").read_text(encoding="utf-8")))
        text = (
            (GROVE / "topologies.yaml").read_text() + "\n---\n" + (GROVE / "llama-70b-h100.yaml").read_text()
        )
        before = store.list_topologies()
        record = scheduler.submit(parse_documents(text, source="spec"), owner="alice")
        assert record.topology == "h100-topology"
        assert [t.name for t in record.own_topologies] == ["h100-topology"]
        assert store.list_topologies() == before
    finally:
        store.close()
    second, store = service(tmp_path / "s.db")
    try:
        assert second.get(record.id).own_topologies == record.own_topologies
        second.cycle()
        assert second.get(record.id).state is WorkloadState.ADMITTED
    finally:
        store.close()
