"""kube-scheduler's scores as its default profile computes them (v1.37.2), each against the
rule it once got wrong here: per pod NodeResourcesFit (LeastAllocated) plus
BalancedAllocation over cpu and memory, requests counted non-zero (100m, 200Mi), and
TaintToleration's PreferNoSchedule; per placement MostAllocated over every node of it, cordoned
and NotReady ones included (kube/scores.py, kube/node_scores.py)."""

from __future__ import annotations

from builders import GPU, RACK, kube_gang, node, running, topology
from toposched.engine import place
from toposched.frontends.kube.gang import own_topology
from toposched.model import Cluster, Group, Node, Placement, PodSpec, Resources, RunningPod, Toleration
from toposched.model.node import TaintEffect, TolerationOperator
from toposched.model.topology import Topology

HOSTS = topology("rack", "host")


def kube_group(name: str, count: int, requests: dict[str, str], **more: object) -> Group:
    pods = tuple(PodSpec(f"{name}-{i}", i, Resources.parse(requests), **more) for i in range(count))  # type: ignore[arg-type]
    return Group(name, min_member=1, pods=pods)


def nodes_of(
    nodes: list[Node], group: Group, pods: list[RunningPod] | None = None, topo: Topology = HOSTS
) -> list[str | None]:
    result = place(kube_gang(group), Cluster.create(nodes, pods or [], [topo]))
    assert isinstance(result, Placement), result
    return [p.node for p in sorted(result.pods, key=lambda p: p.index)]


def test_pods_asking_only_for_gpus_are_spread_by_cpu_and_memory() -> None:
    # The GPU is filtered on, never scored: a pod asking none counts 100m cpu and 200Mi, and
    # b, whose cpu is free, wins over a, whose GPUs are.
    #
    #   a: 8 GPUs free, 14 of 16 cpus used     b: 4 of 8 GPUs used, cpus free
    nodes = [node(name).at(rack="r1").alloc(cpu=16, memory="64Gi", gpu=8).build() for name in ("a", "b")]
    used = [running("other-a", "a", cpu=14), running("other-b", "b", gpu=4)]
    assert nodes_of(nodes, kube_group("w", 1, {GPU: "1"}), used) == ["b"]


def test_balanced_allocation_decides_between_equally_free_nodes() -> None:
    # LeastAllocated gives both 59; the pod evens out b's use (half its memory used, no cpu)
    # and unbalances a's (half its cpu): BalancedAllocation 79 against 70.
    nodes = [node(name).at(rack="r1").alloc(cpu=8, memory="32Gi").build() for name in ("a", "b")]
    used = [running("other-a", "a", cpu=4), running("other-b", "b", memory="16Gi")]
    assert nodes_of(nodes, kube_group("w", 1, {"cpu": "2", "memory": "2Gi"}), used) == ["b"]


def test_running_pods_without_a_memory_request_count_200mi() -> None:
    # Both nodes run one cpu of pods asking no memory: two pods on a (400Mi counted), one on b.
    nodes = [node(name).at(rack="r1").alloc(cpu=4, memory="1Gi").build() for name in ("a", "b")]
    used = [running("a-1", "a", cpu="500m"), running("a-2", "a", cpu="500m"), running("b-1", "b", cpu=1)]
    assert nodes_of(nodes, kube_group("w", 1, {"cpu": "1", "memory": "100Mi"}), used) == ["b"]


def test_the_gangs_own_pods_without_a_memory_request_count_200mi() -> None:
    # 1,000 cpus make one more cpu no difference; each pod counts 200Mi of the 1Gi, so the
    # second pod goes to b and the third, a tie again, to a.
    nodes = [node(name).at(rack="r1").alloc(cpu=1000, memory="1Gi").build() for name in ("a", "b")]
    assert nodes_of(nodes, kube_group("w", 3, {"cpu": "1"})) == ["a", "b", "a"]


def test_prefer_no_schedule_taints_are_avoided() -> None:
    nodes = [
        node("a").at(rack="r1").alloc(cpu=8).taint("degraded", "true", "PreferNoSchedule").build(),
        node("b").at(rack="r1").alloc(cpu=8).build(),
    ]
    assert nodes_of(nodes, kube_group("w", 1, {"cpu": "1"})) == ["b"]
    tolerant = (Toleration("degraded", TolerationOperator.EXISTS, effect=TaintEffect.PREFER_NO_SCHEDULE),)
    assert nodes_of(nodes, kube_group("w", 1, {"cpu": "1"}, tolerations=tolerant)) == ["a"]


def rack_pair(bad: str) -> list[Node]:
    """r1: a (8 cpus) and a 32-cpu node that is cordoned or NotReady; r2: c (8 cpus)."""
    odd = node("big").at(rack="r1").alloc(cpu=32)
    odd = odd.cordoned() if bad == "cordoned" else odd.not_ready()
    return [
        node("a").at(rack="r1").alloc(cpu=8).build(),
        odd.build(),
        node("c").at(rack="r2").alloc(cpu=8).build(),
    ]


def racked(name: str, requests: dict[str, str], **more: object) -> Group:
    group = kube_group(name, 1, requests, **more)
    return Group(group.name, required=RACK, min_member=1, pods=group.pods, topology=own_topology(RACK).name)


def test_cordoned_and_not_ready_nodes_count_in_their_placement() -> None:
    # kube-scheduler sums every node of a placement: r1 ends 2 of 40 cpus full, r2 2 of 8,
    # so r2 wins (counting r1 as its one usable node, the two would tie and r1 win by name).
    for bad in ("cordoned", "not-ready"):
        cluster = Cluster.create(rack_pair(bad), [], [HOSTS, own_topology(RACK)])
        result = place(kube_gang(racked("w", {"cpu": "2"})), cluster)
        assert isinstance(result, Placement), result
        assert [p.node for p in result.pods] == ["c"], bad


def test_a_pod_tolerating_the_lifecycle_taint_may_use_such_a_node() -> None:
    # As kube-controller-manager taints them: node.kubernetes.io/unschedulable, not-ready.
    for bad, key in (
        ("cordoned", "node.kubernetes.io/unschedulable"),
        ("not-ready", "node.kubernetes.io/not-ready"),
    ):
        cluster = Cluster.create(rack_pair(bad), [], [HOSTS, own_topology(RACK)])
        group = racked("w", {"cpu": "20"}, tolerations=(Toleration(key, TolerationOperator.EXISTS),))
        result = place(kube_gang(group), cluster)
        assert isinstance(result, Placement), result
        assert [p.node for p in result.pods] == ["big"], bad
