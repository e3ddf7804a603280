"""Several kube-scheduler groups (reference/kube-workload-tas.md §7): independent PodGroups, a
CompositePodGroup kept together and placed greedily (no sibling backtracking), all-or-nothing
admission across PodGroups, and what ``Search.COMPLETE`` adds."""

from __future__ import annotations

from builders import BLOCK, RACK, composite, kube_gang, node, pod_group, running, topology
from toposched.engine import place
from toposched.model import Cluster, Gang, Node, Placement, RunningPod, Search, Unschedulable

BLOCK_RACK = topology("block", "rack", "host")


def run(
    gang: Gang, nodes: list[Node], pods: list[RunningPod] | None = None, search: Search = Search.FAITHFUL
):  # type: ignore[no-untyped-def]
    return place(gang, Cluster.create(nodes, pods or [], [BLOCK_RACK]), search=search)


def placed(result: Placement | Unschedulable) -> Placement:
    assert isinstance(result, Placement), getattr(result, "message", result)
    return result


def racks_of(result: Placement | Unschedulable, group: str) -> set[str]:
    return {p.domain[1] for p in placed(result).pods if p.group == group}


# One block, two racks of two 8-CPU nodes; another job holds 6 CPUs of r2-1.
#
#   b1 ── r1: r1-1 r1-2
#      └─ r2: r2-1 (6 used) r2-2
LEADER_NODES = [
    node(f"{r}-{i}").at(block="b1", rack=r).alloc(cpu=8).build() for r in ("r1", "r2") for i in (1, 2)
]
LEADER_USED = [running("other", "r2-1", cpu=6)]


def leader_and_workers() -> tuple:  # type: ignore[type-arg]
    return (
        pod_group("leader", 1, required=RACK, cpu=1),
        pod_group("workers", 2, required=RACK, min_count=2, cpu=4),
    )


def test_independent_pod_groups_may_split() -> None:
    # The leader takes the fullest rack (r2); the workers need 4 CPUs on two nodes: r1.
    result = run(kube_gang(*leader_and_workers()), LEADER_NODES, LEADER_USED)
    assert racks_of(result, "leader") == {"r2"}
    assert racks_of(result, "workers") == {"r1"}


def test_composite_pod_group_keeps_its_children_together() -> None:
    # Under a CompositePodGroup on the rack, r2 holds the leader only (1 of 2 children): r1.
    gang = kube_gang(composite("lws", *leader_and_workers(), required=RACK, min_groups=2))
    result = run(gang, LEADER_NODES, LEADER_USED)
    assert racks_of(result, "leader") == racks_of(result, "workers") == {"r1"}


def test_basic_composite_needs_one_child() -> None:
    # Neither rack holds the 3 workers; the leader alone satisfies a basic CompositePodGroup.
    gang = kube_gang(
        composite(
            "lws", pod_group("leader", 1, cpu=1), pod_group("workers", 3, min_count=3, cpu=8), required=BLOCK
        )
    )
    result = placed(run(gang, LEADER_NODES, LEADER_USED))
    assert {p.group for p in result.pods} == {"leader"}


def test_the_gang_is_admitted_whole() -> None:
    # The workers fit nowhere (the leader took 1 CPU of r1-1 first): the leader, which fits, is
    # not placed either.
    gang = kube_gang(
        pod_group("leader", 1, cpu=1), pod_group("workers", 5, required=RACK, min_count=5, cpu=8)
    )
    result = run(gang, LEADER_NODES, LEADER_USED)
    assert isinstance(result, Unschedulable)
    assert result.group == "workers"
    assert result.message == (
        "0/2 placements are available, first placement status: "
        "minCount (5) cannot be satisfied: 1 scheduled, 3 remaining"
    )


def test_later_pod_groups_see_the_capacity_earlier_ones_took() -> None:
    gang = kube_gang(
        pod_group("first", 2, required=RACK, min_count=2, cpu=8),
        pod_group("second", 2, required=RACK, min_count=2, cpu=8),
    )
    result = run(gang, LEADER_NODES)
    assert racks_of(result, "first") == {"r1"}  # equal racks: the first by name
    assert racks_of(result, "second") == {"r2"}


# Greedy children: A (2 pods of 4 CPUs) takes the rack that ends fullest, r1 (half used by
# another job); B (2 pods of 4 CPUs, only on "fast" nodes, all in r1) then finds no room.
#
#   b1 ── r1: r1-1 r1-2   (fast; 4 of 8 CPUs used on each)
#      └─ r2: r2-1 r2-2   (8 CPUs each)
GREEDY_NODES = [
    *(node(f"r1-{i}").at(block="b1", rack="r1").labels(accel="fast").alloc(cpu=8).build() for i in (1, 2)),
    *(node(f"r2-{i}").at(block="b1", rack="r2").alloc(cpu=8).build() for i in (1, 2)),
]
GREEDY_USED = [running("other-1", "r1-1", cpu=4), running("other-2", "r1-2", cpu=4)]


def greedy_gang() -> Gang:
    a = pod_group("a", 2, required=RACK, min_count=2, cpu=4)
    b = pod_group("b", 2, required=RACK, min_count=2, cpu=4, selector={"accel": "fast"})
    return kube_gang(composite("pair", a, b, required=BLOCK, min_groups=2))


def test_composite_children_are_greedy_without_sibling_backtracking() -> None:
    result = run(greedy_gang(), GREEDY_NODES, GREEDY_USED)
    assert isinstance(result, Unschedulable)
    assert result.group == "pair"
    assert result.message == (
        "0/1 placements are available, first placement status: "
        "minCount (2) cannot be satisfied: 1 scheduled, 0 remaining"
    )


def test_complete_search_finds_what_greedy_children_miss() -> None:
    result = placed(run(greedy_gang(), GREEDY_NODES, GREEDY_USED, search=Search.COMPLETE))
    assert result.found_by is Search.COMPLETE
    assert result.note.startswith("faithful placement failed: 0/1 placements are available")
    assert racks_of(result, "a") == {"r2"}
    assert racks_of(result, "b") == {"r1"}


def test_complete_search_returns_the_faithful_answer_when_there_is_one() -> None:
    gang = kube_gang(composite("lws", *leader_and_workers(), required=RACK, min_groups=2))
    faithful = placed(run(gang, LEADER_NODES, LEADER_USED))
    complete = placed(run(gang, LEADER_NODES, LEADER_USED, search=Search.COMPLETE))
    assert complete == faithful
    assert complete.found_by is Search.FAITHFUL


def test_complete_search_places_heterogeneous_pods_the_per_pod_choice_misses() -> None:
    # Pod 0 (2 CPUs) takes the emptiest node, r1-1; pod 1 (8 CPUs) then fits nowhere.
    nodes = [
        node("r1-1").at(block="b1", rack="r1").alloc(cpu=8).build(),
        node("r1-2").at(block="b1", rack="r1").alloc(cpu=2).build(),
    ]
    gang = kube_gang(pod_group("workers", 2, required=RACK, min_count=2, cpu=[2, 8]))
    assert isinstance(run(gang, nodes), Unschedulable)
    result = placed(run(gang, nodes, search=Search.COMPLETE))
    assert {p.pod: p.node for p in result.pods} == {"workers-0": "r1-2", "workers-1": "r1-1"}


def test_probe_says_the_complete_search_would_place_it() -> None:
    result = place(
        greedy_gang(),
        Cluster.create(GREEDY_NODES, GREEDY_USED, [BLOCK_RACK]),
        search=Search.FAITHFUL,
        probe=True,
    )
    assert isinstance(result, Unschedulable)
    assert result.note == "a complete search would place it (--search complete)"


def test_complete_search_moves_an_earlier_pod_group_the_later_one_needed() -> None:
    # Independent PodGroups in order: A takes r1 (the fullest after its pods), where B's "fast"
    # nodes are; the complete search puts A in r2.
    a = pod_group("a", 2, required=RACK, min_count=2, cpu=4)
    b = pod_group("b", 2, required=RACK, min_count=2, cpu=4, selector={"accel": "fast"})
    refusal = run(kube_gang(a, b), GREEDY_NODES, GREEDY_USED)
    assert isinstance(refusal, Unschedulable) and refusal.group == "b"
    result = placed(run(kube_gang(a, b), GREEDY_NODES, GREEDY_USED, search=Search.COMPLETE))
    assert (racks_of(result, "a"), racks_of(result, "b")) == ({"r2"}, {"r1"})


def test_bound_pods_in_two_racks_refuse_even_where_the_search_could_drop_their_group() -> None:
    # The outer CompositePodGroup is basic (one child is enough), but the rack-constrained child
    # already runs in r1 and r2: no placement honours it, faithful or complete.
    split = composite("split", pod_group("a", 2, bound={0: "r1-1", 1: "r2-2"}, cpu=1), required=RACK)
    gang = kube_gang(composite("outer", split, pod_group("b", 1, cpu=1)))
    for search in Search:
        result = run(gang, LEADER_NODES, search=search)
        assert isinstance(result, Unschedulable), search
