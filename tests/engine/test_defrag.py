"""Defragmentation advice: the fewest workloads moved to free whole domains, moves that fit."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

from builders import RACK as RACK_KEY
from builders import gang, node, podset, running, topology
from toposched.engine import place
from toposched.engine.defrag import plan_defrag
from toposched.model import Cluster, Node, Placement, RunningPod, Unschedulable

LEVELS = topology("rack", "host")
RACK = 0


def rack(name: str, count: int, gpus: int = 4) -> list[Node]:
    return [node(f"{name}-n{i}").at(rack=name).alloc(gpu=gpus).build() for i in range(count)]


def owned(pod: RunningPod, owner: str) -> RunningPod:
    return replace(pod, owner=owner)


def test_empty_domains_are_taken_first_without_moves() -> None:
    nodes = rack("a", 2) + rack("b", 2)
    plan = plan_defrag(LEVELS, nodes, [running("p", "a-n0", gpu=1)], RACK, 1)
    assert plan.freed == (("b",),) and plan.moves == () and plan.already_free == 1 and plan.complete


def test_the_domain_with_the_fewest_workloads_is_freed_and_its_pods_go_elsewhere() -> None:
    nodes = rack("a", 2) + rack("b", 2) + rack("c", 2)
    pods = [
        owned(running("a1", "a-n0", gpu=1), "train"),
        owned(running("a2", "a-n1", gpu=1), "train"),
        running("b1", "b-n0", gpu=1),
        running("b2", "b-n1", gpu=1),
        running("c1", "c-n0", gpu=4),
        running("c2", "c-n1", gpu=4),
    ]
    plan = plan_defrag(LEVELS, nodes, pods, RACK, 1)
    assert plan.freed == (("a",),)
    (move,) = plan.moves
    assert move.workload == "other/train" and {p.pod for p in move.pods} == {"a1", "a2"}
    assert all(p.target.startswith("b-") for p in move.pods)  # rack c is full


def test_a_workload_spanning_two_domains_counts_once() -> None:
    nodes = rack("a", 1) + rack("b", 1) + rack("c", 2) + rack("d", 4)
    pods = [
        owned(running("x1", "a-n0", gpu=1), "wide"),
        owned(running("x2", "b-n0", gpu=1), "wide"),
        running("c1", "c-n0", gpu=1),
        running("c2", "c-n1", gpu=1),
        *(running(f"d{i}", f"d-n{i}", gpu=1) for i in range(4)),
    ]
    plan = plan_defrag(LEVELS, nodes, pods, RACK, 2)
    assert set(plan.freed) == {("a",), ("b",)} and [m.workload for m in plan.moves] == ["other/wide"]


def test_moves_never_overcommit_and_skip_tainted_nodes() -> None:
    tainted = node("t-n0").at(rack="t").alloc(gpu=8).taint("maintenance").build()
    nodes = [*rack("a", 2), *rack("b", 2), tainted]
    pods = [running(f"a{i}", f"a-n{i}", gpu=2) for i in range(2)] + [running("b0", "b-n0", gpu=3)]
    plan = plan_defrag(LEVELS, nodes, pods, RACK, 2)
    # t is empty; b's 3-GPU pod fits nowhere but on t, so a (two workloads) is the second.
    assert plan.freed == (("t",), ("a",))
    landed = Counter(p.target for m in plan.moves for p in m.pods)
    assert "t-n0" not in landed
    used = Counter({"b-n0": 3})
    for move in plan.moves:
        for pod in move.pods:
            used[pod.target] += 2
    assert all(amount <= 4 for amount in used.values())


def test_when_nothing_more_fits_the_plan_stops_and_says_why() -> None:
    nodes = rack("a", 1) + rack("b", 1)
    pods = [running("a0", "a-n0", gpu=3), running("b0", "b-n0", gpu=3)]
    plan = plan_defrag(LEVELS, nodes, pods, RACK, 1)
    assert plan.freed == () and not plan.complete
    assert "do not fit on the nodes outside" in plan.reason


def test_domains_with_a_cordoned_node_do_not_qualify() -> None:
    nodes = [*rack("a", 1), node("b-n0").at(rack="b").alloc(gpu=4).cordoned().build()]
    plan = plan_defrag(LEVELS, nodes, [], RACK, 2)
    assert plan.freed == (("a",),) and "only 1" in plan.reason


def test_applying_the_moves_lets_a_whole_rack_gang_place_that_did_not_before() -> None:
    nodes = rack("a", 4) + rack("b", 4) + rack("c", 4)
    # Every rack has a little in use: no rack can take a 16-GPU rack-required gang.
    pods = [
        owned(running("a0", "a-n0", gpu=1), "small"),
        owned(running("b0", "b-n1", gpu=2), "mid"),
        owned(running("b1", "b-n2", gpu=2), "mid"),
        running("c0", "c-n0", gpu=3),
        running("c1", "c-n3", gpu=1),
    ]
    whole_rack = gang(podset("train", 4).requests(gpu=4).required(RACK_KEY).build())
    cluster = Cluster.create(nodes, pods, [LEVELS])
    assert isinstance(place(whole_rack, cluster), Unschedulable)
    plan = plan_defrag(LEVELS, nodes, pods, RACK, 1)
    assert plan.freed == (("a",),) and [m.workload for m in plan.moves] == ["other/small"]
    target = {p.pod: p.target for m in plan.moves for p in m.pods}
    moved = [replace(p, node=target.get(p.name, p.node)) for p in pods]
    placed = place(whole_rack, Cluster.create(nodes, moved, [LEVELS]))
    assert isinstance(placed, Placement)
    assert {p.node for p in placed.pods} == {f"a-n{i}" for i in range(4)}
