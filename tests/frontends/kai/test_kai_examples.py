"""The files under ``examples/kai`` load and compile as their comments say."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from toposched.frontends.kai import compile_workload, load_kai, to_gang
from toposched.intake.cluster import load_cluster
from toposched.model import PodSpec

EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "kai"


def load(name: str) -> Any:
    return yaml.safe_load((EXAMPLES / name).read_text(encoding="utf-8"))


def test_tfjob_segments_example() -> None:
    cluster = load_cluster((EXAMPLES / "tfjob-cluster.yaml").read_text(encoding="utf-8"))
    assert len(cluster.nodes) == 32 and [t.name for t in cluster.topologies] == ["cluster-topology"]
    assert sorted(p.node for p in cluster.pods) == ["z1-r2-n1", "z1-r3-n3"]  # zone-1 partly busy
    group = compile_workload(load("tfjob-segments.yaml"), topologies=cluster.topologies).pod_group
    assert group.constraint.required == "topology.kubernetes.io/zone"  # alias resolved
    segments = [sg for sg in group.sub_groups if sg.parent == "worker"]
    assert [(sg.name, sg.min_member, sg.constraint.required) for sg in segments] == [
        (f"worker-{i}", 4, "topology.kubernetes.io/rack") for i in range(4)
    ]
    pods: list[tuple[str | None, PodSpec]] = [
        ("chief", PodSpec("c", 0)),
        ("ps", PodSpec("p0", 0)),
        ("ps", PodSpec("p1", 1)),
    ]
    pods += [(f"worker-{i // 4}", PodSpec(f"w{i}", i)) for i in range(16)]
    assert to_gang(group, pods).size == 19


def test_custom_segments_example() -> None:
    cluster = load_cluster((EXAMPLES / "tfjob-cluster.yaml").read_text(encoding="utf-8"))
    docs = list(yaml.safe_load_all((EXAMPLES / "custom-segments.yaml").read_text(encoding="utf-8")))
    loaded = load_kai(docs, cluster.topologies)
    (group,) = loaded.pod_groups
    assert group.min_member == 6 and group.constraint.required == "topology.kubernetes.io/zone"
    assert [(sg.name, sg.min_member, sg.constraint.required) for sg in group.sub_groups] == [
        ("segment-0", 4, "topology.kubernetes.io/rack"),
        ("segment-1", 2, "topology.kubernetes.io/rack"),
    ]
    assert [p.subgroup for p in loaded.pods] == ["segment-0"] * 4 + ["segment-1"] * 2
    assert loaded.warnings == ()


def test_zone_ab_example() -> None:
    cluster = load_cluster((EXAMPLES / "zone-ab-cluster.yaml").read_text(encoding="utf-8"))
    assert len(cluster.nodes) == 11
    group = compile_workload(load("zone-ab-job.yaml"), topologies=cluster.topologies).pod_group
    assert group.min_member == 3
    assert (group.constraint.required, group.constraint.preferred) == (
        "topology.kubernetes.io/zone",
        "topology.kubernetes.io/rack",
    )
