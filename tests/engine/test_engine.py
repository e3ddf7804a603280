"""The engine API: gangs, all-or-nothing, reasons, concrete nodes, commit, node replacement."""

from __future__ import annotations

from dataclasses import replace

import pytest

from builders import BLOCK, GPU, HOST, RACK, ZONE, gang, group, hosts, node, podset, running, topology
from toposched.engine import place, place_gang, replace_failed_node, usage_of
from toposched.model import (
    Cluster,
    DomainCount,
    Gang,
    Group,
    Node,
    Placement,
    Policy,
    Resources,
    Role,
    Semantics,
    SliceLayer,
    TopologyAssignment,
    Unschedulable,
)
from toposched.snapshot import Snapshot
from toposched.topology import TopologyTree

THREE = topology("block", "rack", "host")

# Block / rack / host, hostname labels differ from node names (node-xN carries hostname xN).
#
#   b1 ── r1 ── x1 (4 gpu)  x2 (4 gpu)
#      └─ r2 ── x3 (2 gpu)
#   b2 ── r3 ── x4 (8 gpu)
CLUSTER = [
    node("node-x1").labels({BLOCK: "b1", RACK: "r1", HOST: "x1"}).alloc(gpu=4).build(),
    node("node-x2").labels({BLOCK: "b1", RACK: "r1", HOST: "x2"}).alloc(gpu=4).build(),
    node("node-x3").labels({BLOCK: "b1", RACK: "r2", HOST: "x3"}).alloc(gpu=2).build(),
    node("node-x4").labels({BLOCK: "b2", RACK: "r3", HOST: "x4"}).alloc(gpu=8).build(),
]


def snapshot(nodes: list[Node] = CLUSTER, levels: tuple[str, ...] = ("block", "rack", "host")) -> Snapshot:
    return Snapshot.build(TopologyTree.build(topology(*levels), nodes))


def placed(result: Placement | Unschedulable) -> Placement:
    assert isinstance(result, Placement), getattr(result, "message", result)
    return result


def unschedulable(result: Placement | Unschedulable) -> Unschedulable:
    assert isinstance(result, Unschedulable), result
    return result


def test_hostname_assignment_uses_label_values_and_pods_use_node_names() -> None:
    result = placed(place_gang(gang(podset("main", 6).requests(gpu=1).required("rack").build()), snapshot()))
    ta = result.assignments["main"]
    assert ta.levels == (HOST,)
    assert ta.domains == (DomainCount(("x1",), 4), DomainCount(("x2",), 2))
    assert [p.node for p in sorted(result.pods, key=lambda p: p.index)] == ["node-x1"] * 4 + ["node-x2"] * 2
    assert result.pods[0].domain == ("b1", "r1", "x1")


def test_all_or_nothing_across_podsets() -> None:
    job = gang(
        podset("first", 8).requests(gpu=1).required("block").build(),
        podset("second", 8).requests(gpu=1).required("block").build(),
        podset("third", 8).requests(gpu=1).required("block").build(),
    )
    result = unschedulable(place_gang(job, snapshot()))
    assert result.group == "third"  # the first two took both blocks


def test_later_podsets_see_earlier_ones_as_used() -> None:
    job = gang(
        podset("a", 8).requests(gpu=1).required("rack").build(), podset("b", 4).requests(gpu=1).build()
    )
    result = placed(place_gang(job, snapshot(), policy=Policy.BESTFIT))
    a_hosts = {d.values for d in result.assignments["a"].domains}
    assert a_hosts == {("x1",), ("x2",)}  # r1 and r3 tie on 8 GPUs; the path decides
    assert sum(d.count for d in result.assignments["b"].domains) == 4


def test_required_failure_reason_and_facts() -> None:
    result = unschedulable(
        place_gang(gang(podset("main", 9).requests(gpu=1).required("rack").build()), snapshot())
    )
    assert result.message == 'topology "default" allows to fit only 8 out of 9 pod(s)'
    assert (result.group, result.level, result.fit, result.needed, result.unit) == ("main", RACK, 8, 9, "pod")
    assert result.best_domain == ("b1", "r1")
    assert result.shortfall == {GPU: 1}  # r1 has 8 GPUs, 9 are needed
    assert result.total_nodes == 4


def test_exclusions_are_counted_in_the_reason() -> None:
    nodes = [*CLUSTER[:2], node("tainted").at(block="b3", rack="r9").alloc(gpu=8).taint("gpu", "yes").build()]
    result = unschedulable(
        place_gang(gang(podset("main", 5).requests(gpu=1).required("host").build()), snapshot(nodes))
    )
    assert result.message == (
        'topology "default" allows to fit only 4 out of 5 pod(s). Total nodes: 3; excluded: taint "gpu=yes:NoSchedule": 1'
    )
    assert result.excluded == {'taint "gpu=yes:NoSchedule"': 1}


@pytest.mark.parametrize(
    ("leaf", "message"),
    [
        pytest.param(
            podset("main", 4).required("zone").build(),
            f"no requested topology level: {ZONE}",
            id="unknown level",
        ),
        pytest.param(
            podset("main", 4).required("host").slices(("rack", 2)).build(),
            f"podset slice topology {RACK} is above the podset topology {HOST}",
            id="slice above level",
        ),
        pytest.param(
            podset("main", 4).slices(("rack", 0)).build(),
            "slice topology requested, but slice size not provided",
            id="slice size missing",
        ),
        pytest.param(
            podset("main", 4).slices(("block", 4), ("block", 2)).build(),
            f"additional slice layer topology {BLOCK} must be at a lower level than {BLOCK}",
            id="layer not deeper",
        ),
        pytest.param(
            podset("main", 4).slices(("block", 4), ("rack", 3)).build(),
            "additional slice layer size 3 must evenly divide parent layer size 4",
            id="layer size does not divide",
        ),
        pytest.param(
            podset("main", 4).slices(("block", 4), ("nowhere", 2)).build(),
            "no requested topology level for additional slice layer: nowhere",
            id="layer level unknown",
        ),
        pytest.param(
            podset("main", 5).required("rack").slices(("host", 2)).build(),
            "slice size 2 does not evenly divide the 5 pods of PodSet 'main'",
            id="slice does not divide podset",
        ),
    ],
)
def test_structural_errors_are_unschedulable(leaf: Group, message: str) -> None:
    result = unschedulable(place_gang(gang(leaf), snapshot()))
    assert result.message == message
    assert result.group == "main"


def test_podset_group_needs_a_level_and_a_single_leader() -> None:
    leader, workers = podset("leader", 1).build(), podset("workers", 3).build()
    no_level = unschedulable(place_gang(gang(group("lws", leader, workers)), snapshot()))
    assert no_level.group == "lws" and "lws" in no_level.message
    two = unschedulable(
        place_gang(gang(group("lws", podset("l", 2).build(), workers, required="rack")), snapshot())
    )
    assert "exactly 1 pod" in two.message


def test_podset_group_roles_come_from_the_front_end() -> None:
    # One pod each: the engine takes the leader the group marks, whatever the order or pod counts.
    lead = podset("lead", 1).requests(cpu="1").build()
    work = podset("work", 1).requests(gpu=2).build()
    nodes = [node("c").at(block="b1", rack="r1", host="c").alloc(cpu=1).build(), *CLUSTER[:1]]
    unmarked = gang(Group("lws", required=RACK, children=(lead, work)))
    assert "must mark one PodSet as leader" in unschedulable(place_gang(unmarked, snapshot(nodes))).message
    marked = (replace(lead, role=Role.LEADER), replace(work, role=Role.WORKERS))
    for children in (marked, marked[::-1]):
        result = placed(place_gang(gang(Group("lws", required=RACK, children=children)), snapshot(nodes)))
        assert {p.group: p.node for p in result.pods} == {"lead": "c", "work": "node-x1"}


def test_podset_group_lands_in_one_domain() -> None:
    job = gang(
        group(
            "lws",
            podset("leader", 1).requests(cpu="1").build(),
            podset("workers", 4).requests(gpu=2).build(),
            required="rack",
        )
    )
    nodes = [
        node(n.name).labels(dict(n.labels)).alloc(cpu=1, gpu=n.allocatable[GPU]).build() for n in CLUSTER
    ]
    result = placed(place_gang(job, snapshot(nodes)))
    racks = {p.domain[:2] for p in result.pods}
    assert len(racks) == 1
    assert result.assignments["leader"].count == 1 and result.assignments["workers"].count == 4


@pytest.mark.parametrize("policy", [Policy.MIXED, Policy.BINPACK])
def test_an_empty_podset_gets_no_assignment(policy: Policy) -> None:
    """Kueue skips TAS for a PodSet of count 0: no TopologyAssignment, the rest as usual."""
    result = placed(
        place_gang(gang(podset("none", 0).build(), podset("one", 1).build()), snapshot(), policy=policy)
    )
    assert set(result.assignments) == {"one"}
    assert result.assignments["one"].count == 1


def test_binpack_orders_parents_before_children_unlike_bestfit() -> None:
    # r1 (8 free) and r3 (8 free) both fit 3 pods; BestFit stays in b1, BINPACK ranks the blocks
    # first (b2: 3/8 requested-to-free beats b1: 3/10), so r3 wins.
    job = gang(podset("main", 3).requests(gpu=1).preferred("rack").build())
    bestfit = placed(place_gang(job, snapshot(), policy=Policy.BESTFIT))
    binpack = placed(place_gang(job, snapshot(), policy=Policy.BINPACK))
    assert bestfit.assignments["main"].domains == (DomainCount(("x1",), 3),)
    assert binpack.assignments["main"].domains == (DomainCount(("x4",), 3),)
    assert binpack.policy is Policy.BINPACK


# Block / rack leaves (no hostname level): pods go to concrete nodes, first fit by node name.
#
#   b1 ── r1: n1 (1 gpu), n2 (3 gpu), n3 (tainted, 8 gpu)
def test_racks_as_leaves_pick_concrete_nodes() -> None:
    nodes = [
        node("n2").labels({BLOCK: "b1", RACK: "r1"}).alloc(gpu=3).build(),
        node("n1").labels({BLOCK: "b1", RACK: "r1"}).alloc(gpu=1).build(),
        node("n3").labels({BLOCK: "b1", RACK: "r1"}).alloc(gpu=8).taint("gpu", "yes").build(),
    ]
    result = placed(
        place_gang(
            gang(podset("main", 4).requests(gpu=1).required("rack").build()),
            snapshot(nodes, ("block", "rack")),
        )
    )
    assert result.assignments["main"].domains == (DomainCount(("b1", "r1"), 4),)
    assert sorted(p.node or "" for p in result.pods) == ["n1", "n2", "n2", "n2"]
    too_many = place_gang(
        gang(podset("main", 5).requests(gpu=1).required("rack").build()), snapshot(nodes, ("block", "rack"))
    )
    assert isinstance(too_many, Unschedulable)  # the taint is honoured on rack leaves too


def test_commit_with_usage_of() -> None:
    snap = snapshot()
    job = gang(podset("main", 8).requests(gpu=1).required("rack").build())
    first = placed(place_gang(job, snap))
    usage = usage_of(first, job)
    assert usage == {"node-x1": Resources({GPU: 4, "pods": 4}), "node-x2": Resources({GPU: 4, "pods": 4})}
    snap.add_usage("job-1", usage)
    second = placed(place_gang(job, snap))
    assert {d.values for d in second.assignments["main"].domains} == {("x4",)}
    snap.add_usage("job-2", usage_of(second, job))
    assert isinstance(place_gang(job, snap), Unschedulable)
    snap.remove_usage("job-1")
    assert isinstance(place_gang(job, snap), Placement)


def test_place_builds_the_snapshot_from_a_cluster() -> None:
    cluster = Cluster.create(CLUSTER, [running("busy", "node-x4", gpu=8)], [THREE])
    job = Gang(
        "job",
        Group("workload", children=(podset("main", 8).requests(gpu=1).required("rack").build(),)),
        policy=Policy.BESTFIT,
    )
    result = placed(place(job, cluster))
    assert result.policy is Policy.BESTFIT
    assert {d.values for d in result.assignments["main"].domains} == {("x1",), ("x2",)}


# Node replacement: host x2 of rack r1 fails; its pods must stay in r1 (required rack). The
# snapshot carries the gang's own usage, as a live scheduler's does.
#
#   b1 ── r1 ── x1 (2)  x2 (failed)  x3 (2)
#      └─ r2 ── x4 (8)
def test_replace_failed_node_keeps_survivors_and_moves_the_rest() -> None:
    nodes = [
        *hosts([2], block="b1", rack="r1"),
        node("x2").at(block="b1", rack="r1").alloc(gpu=2).not_ready().build(),
        node("x3").at(block="b1", rack="r1").alloc(gpu=2).build(),
        node("x4").at(block="b1", rack="r2").alloc(gpu=8).build(),
    ]
    job = gang(
        podset("main", 4).requests(gpu=1).required("rack").build(), podset("other", 1).requests(gpu=1).build()
    )
    current = {
        "main": TopologyAssignment((HOST,), (DomainCount(("x1",), 2), DomainCount(("x2",), 2))),
        "other": TopologyAssignment((HOST,), (DomainCount(("x4",), 1),)),
    }
    snap = snapshot(nodes)
    snap.add_usage("job", {"x1": Resources({GPU: 2, "pods": 2}), "x4": Resources({GPU: 1, "pods": 1})})
    result = placed(replace_failed_node(job, snap, current, "x2"))
    assert result.assignments["main"].domains == (DomainCount(("x1",), 2), DomainCount(("x3",), 2))
    assert result.assignments["other"] == current["other"]
    by_index = {p.index: p.node for p in result.pods if p.group == "main"}
    assert by_index == {0: "x1", 1: "x1", 2: "x3", 3: "x3"}


def test_replace_failed_node_gives_an_empty_podset_no_assignment() -> None:
    nodes = [*hosts([2], block="b1", rack="r1"), node("x2").at(block="b1", rack="r1").alloc(gpu=2).build()]
    job = gang(podset("none", 0).requests(gpu=1).build(), podset("main", 1).requests(gpu=1).build())
    current = {"main": TopologyAssignment((HOST,), (DomainCount(("x1",), 1),))}
    result = placed(replace_failed_node(job, snapshot(nodes), current, "x1"))
    assert set(result.assignments) == {"main"}
    assert result.assignments["main"].domains == (DomainCount(("x2",), 1),)


def test_replace_failed_node_reports_stale_domains() -> None:
    job = gang(podset("main", 2).requests(gpu=1).build())
    current = {"main": TopologyAssignment((HOST,), (DomainCount(("gone",), 1), DomainCount(("x1",), 1)))}
    result = unschedulable(replace_failed_node(job, snapshot(), current, "x1"))
    assert "stale domain gone" in result.message


def test_slices_keep_consecutive_pods_together() -> None:
    job = gang(podset("main", 8).requests(gpu=1).required("block").slices(("rack", 4)).build())
    result = placed(place_gang(job, snapshot()))
    racks = [p.domain[:2] for p in sorted(result.pods, key=lambda p: p.index)]
    assert len(set(racks[:4])) == 1 and len(set(racks[4:])) == 1


def test_slice_layer_levels_may_be_aliases() -> None:
    levels = topology("block", "rack", "host")
    aliased = type(levels)(levels.name, levels.levels, {"rack": RACK})
    tree = TopologyTree.build(aliased, CLUSTER)
    leaf = Group(
        "main",
        required="rack",
        slices=(SliceLayer("rack", 2),),
        pods=podset("main", 4).requests(gpu=1).build().pods,
    )
    result = placed(place_gang(gang(leaf), Snapshot.build(tree)))
    assert result.assignments["main"].count == 4


def test_semantics_not_policy_chooses_the_solver() -> None:
    job = gang(podset("main", 20).requests(gpu=1).required("rack").build())
    kueue = unschedulable(place_gang(job, snapshot(), policy=Policy.BESTFIT))
    kai = unschedulable(
        place_gang(replace(job, semantics=Semantics.HIERARCHY), snapshot(), policy=Policy.BESTFIT)
    )
    assert kueue.message.startswith('topology "default" allows to fit only 8 out of 20 pod(s)')
    assert kai.message == "not enough resources in the cluster to allocate the job"
    assert kai.policy is kueue.policy is Policy.BESTFIT
