"""The side-by-side harness's own parts, without a control plane: generated cases are the same
for the same seed, and the re-derived kube-scheduler per-pod choice tells a tie from a
different rule."""

from __future__ import annotations

from collections import Counter
from typing import Any

from tests.realkube.sidebyside.cases import generate_case
from tests.realkube.sidebyside.gangs import Leaf, Scope, Unit
from tests.realkube.sidebyside.oracle import cluster_state, pod_shape, reachable
from tests.realkube.sidebyside.ties import kube_order


def test_a_case_is_the_same_for_the_same_seed_and_number() -> None:
    first, again, other = generate_case(3, 17), generate_case(3, 17), generate_case(3, 18)
    assert first == again
    assert (first.cluster, first.gang) != (other.cluster, other.gang)
    assert all(n.name.startswith(f"{first.prefix}-") for n in first.cluster.nodes)


def node(name: str, cpu: str, memory: str) -> dict[str, Any]:
    return {
        "kind": "Node",
        "metadata": {"name": name, "labels": {"rack": "r1"}},
        "status": {"allocatable": {"cpu": cpu, "memory": memory, "pods": "110"}},
    }


POD = {"spec": {"containers": [{"resources": {"requests": {"cpu": "1", "memory": "1Gi"}}}]}}


def test_alike_nodes_take_alike_pods_in_turn_whichever_goes_first() -> None:
    state = cluster_state([node("a", "4", "8Gi"), node("b", "4", "8Gi")])
    nodes, shape = [state["a"], state["b"]], pod_shape(POD)
    assert reachable(nodes, shape, Counter({"a": 1, "b": 1}), 2) is True
    assert reachable(nodes, shape, Counter({"b": 1}), 2) is False  # a second pod fits: it is placed
    assert reachable(nodes, shape, Counter({"a": 2}), 2) is False  # b scores higher for the second


def test_a_fuller_node_is_not_a_tie() -> None:
    state = cluster_state([node("a", "4", "8Gi"), node("b", "8", "16Gi")])
    assert reachable([state["a"], state["b"]], pod_shape(POD), Counter({"a": 1}), 1) is False


def test_children_are_taken_by_creation_time_then_name() -> None:
    def group(name: str, stamp: str, kind: str = "PodGroup", parent: str | None = "root") -> dict[str, Any]:
        spec = {"parentCompositePodGroupName": parent} if parent else {}
        return {"kind": kind, "metadata": {"name": name, "creationTimestamp": stamp}, "spec": spec}

    groups = [
        group("root-3", "2026-01-01T00:00:00Z"),
        group("root-1", "2026-01-01T00:00:01Z"),
        group("root-2", "2026-01-01T00:00:00Z"),
        group("root", "2026-01-01T00:00:02Z", "CompositePodGroup", None),
    ]
    leaves = tuple(Leaf(n, None, (), ()) for n in ("root-3", "root-1", "root-2"))
    unit = Unit("root", leaves, ("root-3", "root-1", "root-2", "root"), (Scope("root", "rack", ()),))
    assert kube_order(unit, groups) == ["root-2", "root-3", "root-1"]
