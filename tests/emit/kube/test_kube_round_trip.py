"""Kueue and KAI examples written as kube objects, read back through the kube front end and
placed: every pod lands in the same domain of each level its group requires (what kube can
express; preferred levels and in-domain node choice are the schedulers' own)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import pytest
from tests.emit.kube.schemas import check

from toposched.emit.kube import compile_to_kube
from toposched.engine import place
from toposched.frontends.registry import CompileContext, Compiled, default_registry
from toposched.intake.cluster import load_cluster
from toposched.intake.parse import parse_documents
from toposched.model import Cluster, Gang, Group, Placement, Policy, Topology

ROOT = Path(__file__).resolve().parents[3]
SAMPLE = ROOT / "src" / "toposched" / "samples" / "cluster.yaml"
KAI = ROOT / "examples" / "kai"
V1ALPHA3 = "scheduling.k8s.io/v1alpha3"

CASES = [
    pytest.param(ROOT / "examples" / "kueue" / "job-rack.yaml", SAMPLE, id="kueue-job-rack"),
    pytest.param(ROOT / "examples" / "kueue" / "pod-group.yaml", SAMPLE, id="kueue-pod-group"),
    pytest.param(ROOT / "examples" / "kueue" / "lws-group.yaml", SAMPLE, id="kueue-lws-group"),
    pytest.param(KAI / "custom-segments.yaml", KAI / "tfjob-cluster.yaml", id="kai-custom-segments"),
    pytest.param(KAI / "podgroup-pods.yaml", KAI / "zone-ab-cluster.yaml", id="kai-podgroup-pods"),
    pytest.param(KAI / "zone-ab-job.yaml", KAI / "zone-ab-cluster.yaml", id="kai-zone-ab-job"),
    pytest.param(KAI / "tfjob-segments.yaml", KAI / "tfjob-cluster.yaml", id="kai-tfjob-segments"),
]


def compiled(documents: list[object], cluster: Cluster, default: str | None) -> tuple[Topology, Compiled]:
    context = CompileContext(topologies=cluster.topologies)
    return default_registry().compile_for(documents, context, default=default)


def required_levels(gang: Gang, topology: Topology) -> dict[str, list[str]]:
    """Each pod's required levels (label keys), from its group and every group above it."""
    out: dict[str, list[str]] = {}

    def walk(group: Group, above: list[str]) -> None:
        levels = [*above, *([topology.resolve(group.required) or group.required] if group.required else [])]
        for pod in group.pods:
            out[pod.name] = levels
        for child in group.children:
            walk(child, levels)

    walk(gang.root, [])
    return out


def domains(result: Placement, levels: Mapping[str, list[str]], cluster: Cluster) -> dict[str, list[str]]:
    labels = {node.name: node.labels for node in cluster.nodes}
    return {p.pod: [labels[str(p.node)][key] for key in levels[p.pod]] for p in result.pods}


@pytest.mark.parametrize(("workload", "cluster_file"), CASES)
def test_round_trip_places_in_the_same_domains(workload: Path, cluster_file: Path) -> None:
    cluster = load_cluster(cluster_file.read_text(encoding="utf-8"))
    default = cluster.topologies[0].name if len(cluster.topologies) == 1 else None
    topology, source = compiled(
        parse_documents(workload.read_text(encoding="utf-8"), source=str(workload)), cluster, default
    )
    original = source.gang
    translation = compile_to_kube(original, topology, api_version=V1ALPHA3)
    for obj in translation.objects:
        check(obj)
    kube_topology, kube = compiled(list(translation.objects), cluster, topology.name)
    assert kube_topology.name == "kube.all-nodes"  # kube-scheduler's keys are node labels, no Topology
    first = place(original, cluster, topology=topology)
    # The same domain order as the original (Kueue gangs leave it to the default, Mixed).
    on_kube = cluster
    for brought in kube.topologies:
        on_kube = on_kube.with_topology(brought)
    second = place(kube.gang, on_kube, topology=kube_topology, policy=original.policy or Policy.MIXED)
    assert isinstance(first, Placement) and isinstance(second, Placement)
    levels = required_levels(original, topology)
    assert domains(second, levels, cluster) == domains(first, levels, cluster)
