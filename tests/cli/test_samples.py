"""The bundled sample cluster: reproducible from its generator, and shaped as documented."""

from __future__ import annotations

from collections import Counter

from toposched.intake.cluster import load_cluster_report
from toposched.samples import generate, read_sample, sample_names

GPU = "nvidia.com/gpu"


def test_cluster_yaml_is_what_the_generator_writes() -> None:
    assert read_sample("cluster.yaml") == generate.render(), "run: python -m toposched.samples.generate"


def test_sample_cluster_shape() -> None:
    cluster, warnings = load_cluster_report(read_sample("cluster.yaml"), source="cluster.yaml")
    assert warnings == []
    assert len(cluster.nodes) == 2 * 2 * 4 * 18
    assert {node.allocatable[GPU] for node in cluster.nodes} == {4}
    assert [node.name for node in cluster.nodes if not node.schedulable] == ["z1-b1-r1-n05"]
    topology = cluster.topology()
    assert (topology.name, len(topology.levels)) == ("default", 4)
    racks = Counter(node.labels[topology.levels[2]] for node in cluster.nodes)
    assert len(racks) == 16 and set(racks.values()) == {18}
    assert cluster.nodes[0].name == "z1-b1-r1-n01"
    busy = {pod.node: pod.requests[GPU] for pod in cluster.pods}
    assert busy == generate.BUSY


def test_sample_jobs_are_listed_in_order() -> None:
    names = sample_names("jobs")
    assert names == sorted(names) and len(names) == 4
    assert all(read_sample(name).startswith("# ") for name in names)
