"""One Grove domain rule for every path: ``examples/grove/llama-70b-h100.yaml`` packs its decode
clique with ``packDomain: host``. ``toposched place``, ``toposched compile`` and the service's
intake all accept it, whether the ClusterTopology is the example's own or the one toposched writes
for a stored topology whose hostname level has no alias (``kubernetes.io/hostname`` → ``host``)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from toposched.intake.parse import parse_documents
from toposched.model import HOSTNAME, Topology
from toposched.scheduler import ManualClock, Scheduler
from toposched.store import MemoryStore
from toposched.wire.grove import cluster_topology_object, parse_cluster_topology

from .conftest import EXAMPLES, Invoke, node_labels

GROVE = EXAMPLES / "grove"
WORKLOAD, CLUSTER = GROVE / "llama-70b-h100.yaml", GROVE / "cluster.yaml"
ZONE, RACK = "topology.kubernetes.io/zone", "example.com/h100-rack"
DECODE = "llama-70b-h100-0-decode"

# The h100 topology as the service stores it from a KAI Topology that aliases zone and rack only.
STORED_KAI = Topology.create("h100-topology", [ZONE, RACK, HOSTNAME], {"zone": ZONE, "rack": RACK})


def example_topologies() -> list[Topology]:
    """The example ClusterTopologies as the service stores them."""
    docs = yaml.safe_load_all((GROVE / "topologies.yaml").read_text(encoding="utf-8"))
    return [parse_cluster_topology(doc).to_topology() for doc in docs]


@pytest.fixture(params=["example", "written"])
def topologies(request: pytest.FixtureRequest, tmp_path: Path) -> Path:
    """A ClusterTopology file: the example's, or the one written for the stored KAI topology."""
    if request.param == "example":
        return GROVE / "topologies.yaml"
    path = tmp_path / "h100-topology.yaml"
    path.write_text(yaml.safe_dump(cluster_topology_object(STORED_KAI)), encoding="utf-8")
    return path


def test_written_cluster_topology_names_the_hostname_level_host() -> None:
    levels = cluster_topology_object(STORED_KAI)["spec"]["levels"]
    assert levels[-1] == {"domain": "host", "key": HOSTNAME}


def test_place_packs_the_decode_clique_on_one_host(invoke: Invoke, topologies: Path) -> None:
    run = invoke("place", WORKLOAD, "--cluster", CLUSTER, "--topology", topologies, "-o", "json")
    assert run.exit_code == 0, run.stderr
    pods = run.json()["pods"]
    labels = node_labels(CLUSTER)
    assert len({labels[p["node"]][RACK] for p in pods}) == 1
    assert len({p["node"] for p in pods if p["podSet"] == DECODE}) == 1


def test_compile_grove_translates_host_to_the_hostname_label(invoke: Invoke, topologies: Path) -> None:
    run = invoke("compile", WORKLOAD, "--topology", topologies)
    assert run.exit_code == 0, run.stderr
    (gang,) = [d for d in yaml.safe_load_all(run.stdout) if d["kind"] == "PodGang"]
    decode = next(g for g in gang["spec"]["podgroups"] if g["name"] == DECODE)
    assert decode["topologyConstraint"]["packConstraint"]["required"] == HOSTNAME


@pytest.mark.parametrize("stored", ["example", "kai"])
def test_service_accepts_pack_domain_host(stored: str) -> None:
    known = tuple(example_topologies()) if stored == "example" else (STORED_KAI,)
    scheduler = Scheduler(MemoryStore(), ManualClock())
    for topology in known:
        scheduler.put_topology(topology)
    documents = parse_documents(WORKLOAD.read_text(encoding="utf-8"), source="spec")
    submission = scheduler.prepare(documents, owner="alice")
    assert submission.record.topology == "h100-topology"
    (replica,) = submission.gang.root.children
    assert replica.required == RACK
    decode = {leaf.required for leaf in submission.gang.leaves() if leaf.name.endswith("decode")}
    assert decode == {HOSTNAME}
