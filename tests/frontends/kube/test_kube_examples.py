"""The examples under examples/kube compile, their objects validate against the project's
schemas, and they place on the bundled cluster as kube-scheduler would place them."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.emit.kube.schemas import check

from toposched.cli.workloads import place_documents
from toposched.emit.kube import compile_to_kube
from toposched.intake.cluster import load_cluster
from toposched.intake.parse import parse_documents
from toposched.model import Cluster, Node, Placement, Topology, Unschedulable

EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "kube"
RACK = "example.com/rack"


def cluster() -> Cluster:
    return load_cluster((EXAMPLES / "cluster.yaml").read_text(encoding="utf-8"))


def placed(example: str) -> tuple[Cluster, Placement, list[object]]:
    documents = parse_documents((EXAMPLES / example).read_text(encoding="utf-8"), source=example)
    outcome = place_documents(documents, cluster())
    assert outcome.frontend == "kube"
    assert isinstance(outcome.result, Placement), outcome.result
    return outcome.cluster, outcome.result, documents


def racks(cluster_: Cluster, result: Placement, prefix: str = "") -> set[str]:
    labels = {node.name: node.labels for node in cluster_.nodes}
    return {labels[str(p.node)][RACK] for p in result.pods if p.pod.startswith(prefix)}


@pytest.mark.parametrize("example", ["job-one-rack.yaml", "leader-workers.yaml", "composite.yaml"])
def test_example_objects_and_their_kube_translation_validate(example: str) -> None:
    documents = parse_documents((EXAMPLES / example).read_text(encoding="utf-8"), source=example)
    outcome = place_documents(documents, cluster())
    for obj in documents:
        if str(obj["apiVersion"]).startswith("scheduling.k8s.io/"):  # type: ignore[index]
            check(obj)  # type: ignore[arg-type]
    for version in ("v1alpha2", "v1alpha3", "v1beta1"):
        translation = compile_to_kube(
            outcome.gang, outcome.topology, api_version=f"scheduling.k8s.io/{version}"
        )
        for obj in translation.objects:
            check(obj)


def test_job_of_eight_takes_the_fullest_rack_that_holds_it() -> None:
    cluster_, result, _ = placed("job-one-rack.yaml")
    # rack-a has 32 free GPUs (a notebook holds a-1), rack-b 40, rack-c 24: the fullest that fits.
    assert racks(cluster_, result) == {"rack-a"}
    assert len(result.pods) == 8


def test_leader_and_workers_are_placed_each_as_their_group_asks() -> None:
    cluster_, result, _ = placed("leader-workers.yaml")
    assert len(racks(cluster_, result, "infer-worker")) == 1
    assert [p.pod for p in result.pods if p.pod.startswith("infer-leader")] == ["infer-leader-0"]


def test_composite_keeps_leader_and_workers_in_one_rack() -> None:
    cluster_, result, _ = placed("composite.yaml")
    assert racks(cluster_, result) == {"rack-b"}  # the only rack with five free nodes
    assert len(result.pods) == 5


def test_nodes_without_the_label_are_never_used() -> None:
    """Only spare-1, which has no rack label, has room: kube-scheduler finds no placement."""
    base = cluster()
    spare = next(n for n in base.nodes if n.name == "spare-1")
    full = [n for n in base.nodes if RACK in n.labels]
    small = Cluster((*[Node.create(n.name, n.labels) for n in full], spare), (), ())
    job = (
        (EXAMPLES / "job-one-rack.yaml")
        .read_text(encoding="utf-8")
        .replace("parallelism: 8", "parallelism: 1")
    )
    job = job.replace("completions: 8", "completions: 1")
    outcome = place_documents(parse_documents(job, source="job"), small)
    assert isinstance(outcome.result, Unschedulable)


def job_of(pods: int, *, constrained: bool = True) -> list[object]:
    text = (EXAMPLES / "job-one-rack.yaml").read_text(encoding="utf-8")
    text = text.replace("parallelism: 8", f"parallelism: {pods}").replace(
        "completions: 8", f"completions: {pods}"
    )
    if not constrained:
        text = text.replace("    schedulingConstraints: {topology: [{key: example.com/rack}]}\n", "")
    return parse_documents(text, source="job")


def relabelled(keep: set[str], *, extra: dict[str, str] | None = None) -> Cluster:
    """The example cluster with each node's labels cut down to ``keep`` (plus ``extra``)."""
    base = cluster()
    nodes = [
        Node.create(
            n.name, {**{k: v for k, v in n.labels.items() if k in keep}, **(extra or {})}, n.allocatable
        )
        for n in base.nodes
    ]
    return Cluster(tuple(nodes), base.pods, ())


def test_hostname_is_not_needed_for_a_rack_constraint() -> None:
    """kube-scheduler groups nodes by the constraint's label alone (issue 22, item 11)."""
    outcome = place_documents(job_of(8), relabelled({RACK}))
    assert isinstance(outcome.result, Placement), outcome.result
    assert racks(outcome.cluster, outcome.result) == {"rack-a"}


def test_other_labels_of_a_known_topology_are_not_needed_either() -> None:
    """A stored topology that has the key among other levels does not narrow the nodes."""
    block = Topology.create("blocks", ["example.com/block", RACK, "kubernetes.io/hostname"])
    bare = relabelled({RACK})
    outcome = place_documents(job_of(8), Cluster(bare.nodes, bare.pods, (block,)))
    assert isinstance(outcome.result, Placement), outcome.result


def test_an_unconstrained_podgroup_may_use_every_node() -> None:
    """No label at all: the one placement holds every schedulable node, spare-1 included."""
    outcome = place_documents(job_of(16, constrained=False), relabelled(set()))
    assert isinstance(outcome.result, Placement), outcome.result
    assert "spare-1" in {p.node for p in outcome.result.pods}


def test_a_refusal_does_not_claim_a_label_every_node_has_is_missing() -> None:
    outcome = place_documents(job_of(12), relabelled({RACK}))
    assert isinstance(outcome.result, Unschedulable)
    assert "no node has label" not in outcome.result.message
    assert outcome.result.message.startswith("0/3 placements are available")
