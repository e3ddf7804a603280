"""The service reads OSMO workflows: a pool with topology keys brings its own Topology, and a
submitted workflow is compiled against the stored pool and placed by the loop."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from toposched.intake.cluster import load_cluster
from toposched.intake.parse import parse_documents
from toposched.model import HOSTNAME, ConflictError, NotFoundError, Topology, WorkloadSpecError
from toposched.scheduler import ManualClock, Scheduler
from toposched.store import MemoryStore, WorkloadState

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "osmo"
CASE = "1-single-nvl72-rack"


@pytest.fixture
def scheduler() -> Scheduler:
    service = Scheduler(MemoryStore(), ManualClock(1000.0))
    service.import_cluster(load_cluster((EXAMPLES / f"{CASE}.cluster.yaml").read_text(encoding="utf-8")))
    pool = yaml.safe_load((EXAMPLES / f"{CASE}.pool.yaml").read_text(encoding="utf-8"))
    service.put_pool(
        pool["name"],
        topology_keys=pool["topology_keys"],
        description=pool["description"],
        backend=pool["backend"],
    )
    return service


def test_pool_with_keys_gets_its_osmo_topology(scheduler: Scheduler) -> None:
    record = scheduler.store.get_pool("my-pool")
    assert record.topology == "osmo-pool-osmo-workflows-my-pool-topology"
    topology = scheduler.store.get_topology(record.topology)
    assert topology.levels == (
        "topology.kubernetes.io/zone",
        "topology.kubernetes.io/spine",
        "topology.kubernetes.io/rack",
        "nvidia.com/gpu-clique",
    )


def test_submitted_workflow_is_placed_in_one_gpu_clique(scheduler: Scheduler) -> None:
    workflow = parse_documents((EXAMPLES / f"{CASE}.workflow.yaml").read_text(encoding="utf-8"), source="wf")
    record = scheduler.submit(workflow, owner="alice")
    assert record.topology == "osmo-pool-osmo-workflows-my-pool-topology"
    report = scheduler.cycle()
    assert report.admitted == (record.id,)
    admitted = scheduler.get(record.id)
    assert admitted.state is WorkloadState.ADMITTED
    pods = admitted.placement["pods"]
    assert sorted(p["name"] for p in pods) == [f"model1-shard{i}" for i in range(1, 5)]
    nodes = {n.name: n for n in scheduler.store.get_nodes()}
    cliques = {nodes[p["node"]].labels["nvidia.com/gpu-clique"] for p in pods}
    assert len(cliques) == 1


def test_pool_topology_levels_cannot_change_under_admitted_workloads(scheduler: Scheduler) -> None:
    workflow = parse_documents((EXAMPLES / f"{CASE}.workflow.yaml").read_text(encoding="utf-8"), source="wf")
    scheduler.submit(workflow, owner="alice")
    scheduler.cycle()
    pool = yaml.safe_load((EXAMPLES / f"{CASE}.pool.yaml").read_text(encoding="utf-8"))
    with pytest.raises(ConflictError):
        scheduler.put_pool("my-pool", topology_keys=pool["topology_keys"][:2], backend=pool["backend"])


def test_a_kueue_job_does_not_land_on_a_pools_own_topology(scheduler: Scheduler) -> None:
    """The pool's topology is that pool's; with no other topology a Kueue job must name one."""
    job = parse_documents(
        (EXAMPLES.parent / "kueue" / "job-rack.yaml").read_text(encoding="utf-8"), source="job"
    )
    with pytest.raises(NotFoundError):
        scheduler.submit(job, owner="alice")


def test_a_workflow_keeps_its_pools_topology_beside_an_unrelated_one(scheduler: Scheduler) -> None:
    scheduler.put_topology(Topology.create("datacenter", ["topology.kubernetes.io/zone", HOSTNAME]))
    workflow = parse_documents((EXAMPLES / f"{CASE}.workflow.yaml").read_text(encoding="utf-8"), source="wf")
    record = scheduler.submit(workflow, owner="alice")
    assert record.topology == "osmo-pool-osmo-workflows-my-pool-topology"
    scheduler.cycle()
    assert scheduler.get(record.id).state is WorkloadState.ADMITTED


def test_a_document_without_a_workflow_section_is_a_spec_error(scheduler: Scheduler) -> None:
    with pytest.raises(WorkloadSpecError, match="workflow: is missing"):
        scheduler.submit([{"name": "not-a-workflow"}], owner="alice", kind="osmo")


def test_a_pool_cannot_be_deleted_under_an_admitted_workflow(scheduler: Scheduler) -> None:
    workflow = parse_documents((EXAMPLES / f"{CASE}.workflow.yaml").read_text(encoding="utf-8"), source="wf")
    record = scheduler.submit(workflow, owner="alice")
    assert record.pool == "my-pool"
    scheduler.cycle()
    with pytest.raises(ConflictError):
        scheduler.delete_pool("my-pool")
