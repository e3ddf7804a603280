"""kube-scheduler's placement of one PodGroup (reference/kube-workload-tas.md §5-§8): candidate
placements, minCount qualification, scoring and the deterministic tie rule, pinned groups,
the basic policy and the refusal messages."""

from __future__ import annotations

from dataclasses import replace

import pytest

from builders import BLOCK, HOST, RACK, kube_gang, node, pod_group, running, topology
from toposched.engine import place
from toposched.model import Cluster, Gang, Node, Placement, RunningPod, Unschedulable

RACK_HOST = topology("rack", "host")
BLOCK_RACK = topology("block", "rack", "host")


def rack_nodes(racks: dict[str, list[int]], resource: str = "gpu") -> list[Node]:
    """Nodes ``<rack>-<i>`` with the given GPUs (or another ``resource``), under the rack label
    only; the tables below write racks this way. ``{"r1": [8, 8], "r2": [8]}`` is

        r1: r1-1 (8 GPUs) r1-2 (8 GPUs)     r2: r2-1 (8 GPUs)
    """
    return [
        node(f"{rack}-{i}").at(rack=rack).alloc(**{resource: amount}).build()
        for rack, amounts in racks.items()
        for i, amount in enumerate(amounts, start=1)
    ]


def run(gang: Gang, nodes: list[Node], pods: list[RunningPod] | None = None, topo=RACK_HOST):  # type: ignore[no-untyped-def]
    return place(gang, Cluster.create(nodes, pods or [], [topo]))


def placed(result: Placement | Unschedulable) -> Placement:
    assert isinstance(result, Placement), getattr(result, "message", result)
    return result


def refused(result: Placement | Unschedulable) -> Unschedulable:
    assert isinstance(result, Unschedulable), result
    return result


def nodes_of(result: Placement | Unschedulable, group: str | None = None) -> dict[str, str | None]:
    return {p.pod: p.node for p in placed(result).pods if group is None or p.group == group}


def racks_of(result: Placement | Unschedulable, group: str | None = None) -> set[str]:
    return {node.rsplit("-", 1)[0] for node in nodes_of(result, group).values() if node}


# -- candidate placements ------------------------------------------------------------------------

# Three racks of two 4-GPU nodes; node "loose" (16 GPUs) carries no rack label.
#
#   r1: r1-1 r1-2     r2: r2-1 r2-2     r3: r3-1 r3-2     (no rack): loose
THREE_RACKS = [
    *rack_nodes({"r1": [4, 4], "r2": [4, 4], "r3": [4, 4]}),
    node("loose").labels({HOST: "loose"}).alloc(gpu=16).build(),
]


def test_one_placement_per_label_value_and_unlabelled_nodes_never_used() -> None:
    # Three pods of 4 GPUs fit no rack; the unlabelled node could hold all of them.
    result = refused(run(kube_gang(pod_group("workers", 3, required=RACK, min_count=3, gpu=4)), THREE_RACKS))
    assert result.message == (
        "0/3 placements are available, first placement status: "
        "minCount (3) cannot be satisfied: 2 scheduled, 0 remaining"
    )
    assert (result.group, result.level, result.fit, result.needed) == ("workers", RACK, 2, 3)


def test_one_placement_per_value_even_under_two_parents() -> None:
    # Rack "r1" exists in both blocks: kube-scheduler buckets nodes by the label's value, so
    # both are one candidate of four nodes.
    #
    #   b1 ── r1: b1-1 b1-2     b2 ── r1: b2-1 b2-2
    #      └─ r2: b1-3
    nodes = [
        node("b1-1").at(block="b1", rack="r1").alloc(gpu=4).build(),
        node("b1-2").at(block="b1", rack="r1").alloc(gpu=4).build(),
        node("b1-3").at(block="b1", rack="r2").alloc(gpu=4).build(),
        node("b2-1").at(block="b2", rack="r1").alloc(gpu=4).build(),
        node("b2-2").at(block="b2", rack="r1").alloc(gpu=4).build(),
    ]
    result = run(
        kube_gang(pod_group("workers", 4, required=RACK, min_count=4, gpu=4)), nodes, topo=BLOCK_RACK
    )
    assert set(nodes_of(result).values()) == {"b1-1", "b1-2", "b2-1", "b2-2"}


def test_no_constraint_is_one_placement_of_every_node() -> None:
    result = run(kube_gang(pod_group("workers", 6, min_count=6, gpu=4)), THREE_RACKS[:6])
    assert len(set(nodes_of(result).values())) == 6


# -- minCount qualification ------------------------------------------------------------------------


def test_rejected_pods_do_not_fail_a_placement_while_min_count_is_reachable() -> None:
    # Pod 0 asks for 8 GPUs and fits nowhere; pods 1-3 fit, and 3 is the minimum.
    group = pod_group("workers", 4, required=RACK, min_count=3, gpu=[8, 4, 4, 4])
    nodes = rack_nodes({"r1": [4, 4, 4]})
    result = placed(run(kube_gang(group), nodes))
    assert sorted(nodes_of(result)) == ["workers-1", "workers-2", "workers-3"]  # workers-0 stays pending
    assert result.assignments["workers"].count == 3


def test_early_exit_once_min_count_is_out_of_reach() -> None:
    # No pod fits: after the second pod, 0 scheduled + 2 remaining < 3 and the simulation stops.
    result = refused(
        run(kube_gang(pod_group("workers", 4, required=RACK, min_count=3, gpu=8)), THREE_RACKS[:2])
    )
    assert result.message.endswith("minCount (3) cannot be satisfied: 0 scheduled, 2 remaining")


def test_pods_beyond_the_minimum_are_placed_when_they_fit_and_the_rest_stay_pending() -> None:
    # r1 holds 3 of the 5 pods, r2 only 2: r1 wins with 3; pods 3 and 4 stay pending.
    nodes = rack_nodes({"r1": [4, 4, 4], "r2": [4, 4]})
    result = placed(run(kube_gang(pod_group("workers", 5, required=RACK, min_count=2, gpu=4)), nodes))
    assert sorted(nodes_of(result)) == ["workers-0", "workers-1", "workers-2"]
    assert racks_of(result) == {"r1"}


def test_basic_policy_needs_one_pod() -> None:
    nodes = rack_nodes({"r1": [4]})
    result = placed(run(kube_gang(pod_group("workers", 3, required=RACK, gpu=4)), nodes))
    assert list(nodes_of(result)) == ["workers-0"]


# -- scoring and the tie rule ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("racks", "used", "winner"),
    [
        # r1 holds all 4 pods (100 + 50% full), r2 three (75 + 66%): pod count decides.
        pytest.param({"r1": [8, 8], "r2": [3, 3, 3]}, [], "r1", id="more-pods-win"),
        # Both hold all 4: r2 is the fuller afterwards (MostAllocated: bin-packing).
        pytest.param({"r1": [8, 8], "r2": [8, 8]}, [("r2-1", 4)], "r2", id="fullest-rack-wins"),
        # Equal scores: the placement whose name sorts first (kube-scheduler draws at random).
        pytest.param({"r2": [8, 8], "r1": [8, 8]}, [], "r1", id="tie-by-name"),
        # The two scores add with weight 1 each: 3 pods on a rack 100% full (75 + 100) beat
        # 4 pods on one half full (100 + 50).
        pytest.param({"r1": [8, 8], "r2": [8]}, [("r2-1", 2)], "r2", id="scores-add"),
    ],
)
def test_placement_score(racks: dict[str, list[int]], used: list[tuple[str, int]], winner: str) -> None:
    # Four pods of 2 CPUs, at least 3, on nodes of CPUs (the scores read cpu and memory).
    pods = [running(f"other-{i}", on, cpu=cpu) for i, (on, cpu) in enumerate(used)]
    result = run(
        kube_gang(pod_group("workers", 4, required=RACK, min_count=3, cpu=2)),
        rack_nodes(racks, "cpu"),
        pods,
    )
    assert racks_of(result) == {winner}


def test_pods_spread_inside_the_rack_by_least_allocated() -> None:
    # Per pod the default profile's LeastAllocated: the emptiest node first, ties by name.
    nodes = rack_nodes({"r1": [8, 8, 4]}, "cpu")
    result = run(kube_gang(pod_group("workers", 3, required=RACK, min_count=3, cpu=2)), nodes)
    assert nodes_of(result) == {"workers-0": "r1-1", "workers-1": "r1-2", "workers-2": "r1-1"}


# -- pinned groups ---------------------------------------------------------------------------------


def test_bound_pods_pin_the_group_and_count_toward_min_count() -> None:
    # workers-0 already runs on r2-1: the group stays in r2 though r1 would hold more pods.
    #
    #   r1: r1-1 (8) r1-2 (8)     r2: r2-1 (4, workers-0) r2-2 (4) r2-3 (4)
    nodes = rack_nodes({"r1": [8, 8], "r2": [4, 4, 4]})
    group = pod_group("workers", 4, required=RACK, min_count=3, gpu=4, bound={0: "r2-1"})
    result = placed(run(kube_gang(group), nodes))
    assert nodes_of(result) == {"workers-0": "r2-1", "workers-1": "r2-2", "workers-2": "r2-3"}


def test_bound_pods_below_min_count_and_a_full_domain_are_refused() -> None:
    nodes = rack_nodes({"r1": [8, 8], "r2": [4]})
    group = pod_group("workers", 3, required=RACK, min_count=3, gpu=4, bound={0: "r2-1"})
    result = refused(run(kube_gang(group), nodes))
    assert result.message == (
        "0/1 placements are available, first placement status: "
        "minCount (3) cannot be satisfied: 1 scheduled, 1 remaining"
    )


def test_bound_pods_in_two_domains_are_refused() -> None:
    nodes = rack_nodes({"r1": [8], "r2": [8]})
    group = pod_group("workers", 3, required=RACK, gpu=4, bound={0: "r1-1", 1: "r2-1"})
    result = refused(run(kube_gang(group), nodes))
    assert result.message == f"pods of workers are bound to nodes in 2 domains of {RACK}: r1, r2"
    assert result.group == "workers"


def test_a_group_named_like_its_workload_keeps_its_own_bound_pods() -> None:
    # A PodGroup may share its Workload's name (the root's): only its own bound pod pins it.
    nodes = rack_nodes({"r1": [8], "r2": [8, 8]})
    workers = pod_group("workers", 2, required=RACK, min_count=2, gpu=4, bound={0: "r2-1"})
    other = pod_group("other", 1, gpu=4, bound={0: "r1-1"})
    gang = kube_gang(workers, other)
    result = placed(run(replace(gang, root=replace(gang.root, name="workers")), nodes))
    assert nodes_of(result)["workers-1"].startswith("r2-")


def test_a_pod_bound_outside_the_topology_is_refused() -> None:
    group = pod_group("workers", 2, required=RACK, gpu=4, bound={0: "loose"})
    result = refused(run(kube_gang(group), THREE_RACKS))
    assert result.message == f"pod workers-0 of workers is bound to node loose, which has no label {RACK}"


def test_a_key_the_topology_lacks_is_refused() -> None:
    result = refused(run(kube_gang(pod_group("workers", 2, required=BLOCK, gpu=4)), THREE_RACKS))
    assert result.message == f"no requested topology level: {BLOCK}"


# -- groups naming another topology ------------------------------------------------------------------

HOSTS = topology("host", name="hosts")


def test_a_group_on_a_topology_without_the_rack_may_use_nodes_without_a_rack_label() -> None:
    # The workers name the hostname-only topology, which holds "loose"; the leader keeps the
    # gang's rack topology, where "loose" does not exist.
    workers = replace(pod_group("workers", 1, gpu=16), topology="hosts")
    gang = replace(kube_gang(pod_group("leader", 1, required=RACK, gpu=4), workers), topology=RACK_HOST.name)
    result = place(gang, Cluster.create(THREE_RACKS, [], [RACK_HOST, HOSTS]), topology=RACK_HOST)
    assert nodes_of(result) == {"leader-0": "r1-1", "workers-0": "loose"}
    assert placed(result).assignments["workers"].domains[0].values == ("loose",)


def test_a_lone_pod_group_may_be_the_root() -> None:
    gang = replace(kube_gang(), root=pod_group("workers", 2, required=RACK, min_count=2, gpu=4))
    assert racks_of(run(gang, THREE_RACKS)) == {"r1"}
