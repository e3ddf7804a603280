"""``Search.COMPLETE``: the exact search places gangs the faithful solvers refuse, says so, and
leaves faithful results alone."""

from __future__ import annotations

from dataclasses import replace

from builders import GPU, HOST, RACK, ZONE, node, podset, running, topology
from toposched.engine import SearchBudget, place, place_gang
from toposched.engine.core.members import build
from toposched.engine.core.space import NodeSpace
from toposched.engine.exact.backtrack import MAX_GROUPS, ExactSearch
from toposched.engine.exact.complete import search_complete
from toposched.engine.profiles import as_policy
from toposched.model import (
    Cluster,
    Gang,
    Group,
    Node,
    Placement,
    PodSpec,
    Policy,
    Resources,
    Search,
    Topology,
    Unschedulable,
)
from toposched.snapshot import Snapshot
from toposched.topology import TopologyTree

ONE_GPU = Resources({GPU: 1})
ZONE_RACK = topology("zone", "rack", "host")


def pods(prefix: str, count: int) -> tuple[PodSpec, ...]:
    return tuple(PodSpec(f"{prefix}-{i}", i, ONE_GPU) for i in range(count))


# The example, two GPUs per node:
#
#   zone-a ── rack-big:   big-1 big-2 big-3   (6 GPUs)
#          └─ rack-small: small-1             (2 GPUs)
NODES = [
    *(node(f"big-{i}").at(zone="zone-a", rack="rack-big").alloc(gpu=2).build() for i in (1, 2, 3)),
    node("small-1").at(zone="zone-a", rack="rack-small").alloc(gpu=2).build(),
]


def workflow(*sizes: int) -> Gang:
    """Subgroups ``a``, ``b``, ``c``... of one-GPU pods, each on one rack, all in one zone."""
    groups = tuple(
        Group(name, required=RACK, min_member=size, pods=pods(name, size))
        for name, size in zip("abcdef", sizes, strict=False)
    )
    return Gang(
        "workflow", Group("workflow", required=ZONE, children=groups), kind="PodGroup", policy=Policy.BINPACK
    )


def snapshot(nodes: list[Node], pods_running: tuple = ()) -> Snapshot:
    return Snapshot.build(TopologyTree.build(ZONE_RACK, nodes), pods_running)


def racks_of(placement: Placement) -> dict[str, set[str]]:
    rack = {n.name: n.labels[RACK] for n in NODES}
    out: dict[str, set[str]] = {}
    for pod in placement.pods:
        assert pod.node is not None
        out.setdefault(pod.group, set()).add(rack[pod.node])
    return out


def test_faithful_refuses_the_one_five_two_workflow() -> None:
    result = place_gang(workflow(1, 5, 2), snapshot(NODES), policy=Policy.BINPACK)
    assert isinstance(result, Unschedulable)
    assert result.note == ""


def test_complete_places_five_plus_one_and_two() -> None:
    faithful = place_gang(workflow(1, 5, 2), snapshot(NODES), policy=Policy.BINPACK)
    result = place_gang(workflow(1, 5, 2), snapshot(NODES), policy=Policy.BINPACK, search=Search.COMPLETE)
    assert isinstance(result, Placement) and isinstance(faithful, Unschedulable)
    assert racks_of(result) == {"a": {"rack-big"}, "b": {"rack-big"}, "c": {"rack-small"}}
    assert len(result.pods) == 8
    assert result.found_by is Search.COMPLETE
    assert result.note == f"faithful placement failed: {faithful.message}; complete search placed it"
    assert {a: sum(d.count for d in result.assignments[a].domains) for a in "abc"} == {"a": 1, "b": 5, "c": 2}


def test_complete_returns_the_faithful_placement_when_there_is_one() -> None:
    gang = workflow(2, 5)
    faithful = place_gang(gang, snapshot(NODES), policy=Policy.BINPACK)
    complete = place_gang(gang, snapshot(NODES), policy=Policy.BINPACK, search=Search.COMPLETE)
    assert isinstance(faithful, Placement)
    assert complete == faithful
    assert complete.found_by is Search.FAITHFUL and complete.note == ""


def test_when_nothing_fits_the_faithful_reason_stands_with_a_note() -> None:
    faithful = place_gang(workflow(1, 6, 2), snapshot(NODES), policy=Policy.BINPACK)
    result = place_gang(workflow(1, 6, 2), snapshot(NODES), policy=Policy.BINPACK, search=Search.COMPLETE)
    assert isinstance(result, Unschedulable) and isinstance(faithful, Unschedulable)
    assert replace(result, note="") == faithful
    assert result.note.startswith("complete search found no placement either")
    assert not result.budget_exhausted


def test_a_spent_budget_is_reported() -> None:
    result = place_gang(
        workflow(1, 5, 2),
        snapshot(NODES),
        policy=Policy.BINPACK,
        search=Search.COMPLETE,
        budget=SearchBudget(steps=1),
    )
    assert isinstance(result, Unschedulable)
    assert result.budget_exhausted
    assert result.note == "complete search stopped at its budget after 1 steps without a placement"


def test_an_injected_expiry_ends_the_search() -> None:
    result = place_gang(
        workflow(1, 5, 2),
        snapshot(NODES),
        policy=Policy.BINPACK,
        search=Search.COMPLETE,
        budget=SearchBudget(expired=lambda: True),
    )
    assert isinstance(result, Unschedulable)
    assert result.budget_exhausted


def with_running(gang: Gang, group: int, node_name: str) -> Gang:
    """``gang`` with the first pod of child ``group`` already running on ``node_name``."""
    children = list(gang.root.children)
    child = children[group]
    children[group] = replace(child, pods=(replace(child.pods[0], node=node_name), *child.pods[1:]))
    return replace(gang, root=replace(gang.root, children=tuple(children)))


def test_running_pods_pin_their_rack() -> None:
    # b's first pod runs on small-1: b must stay in rack-small, which is too small for it.
    result = place_gang(
        with_running(workflow(1, 5, 2), 1, "small-1"), snapshot(NODES), search=Search.COMPLETE
    )
    assert isinstance(result, Unschedulable)


def test_the_search_keeps_running_pods_where_they_are() -> None:
    # Straight to the search (the faithful walk places this one): b-0 runs on big-2, b's other
    # pods join it in rack-big, and the running pod is reported, not placed again.
    gang = with_running(workflow(1, 5, 2), 1, "big-2")
    refused = Unschedulable("workflow", "default", Policy.BINPACK, "refused")
    result = search_complete(gang, snapshot(NODES), refused, policy=as_policy(Policy.BINPACK), kueue=False)
    assert isinstance(result, Placement)
    assert {p.pod: p.node for p in result.pods}["b-0"] == "big-2"
    assert racks_of(result) == {"a": {"rack-big"}, "b": {"rack-big"}, "c": {"rack-small"}}
    assert len(result.pods) == 8


def test_taints_and_other_workloads_are_respected() -> None:
    tainted = [
        node("t-1").at(zone="zone-a", rack="rack-big").alloc(gpu=2).taint("maintenance").build(),
        *NODES[1:],
    ]
    result = place_gang(
        workflow(1, 5, 2), snapshot(tainted, (running("other", "big-2", gpu=1),)), search=Search.COMPLETE
    )
    assert isinstance(result, Unschedulable)  # big-2 and big-3 hold 3 GPUs: b's 5 fit nowhere


def test_kueue_podsets_placed_in_order_get_the_same_search() -> None:
    # BestFit gives "first" the tightest rack (r-three), leaving no rack for "third".
    nodes = [
        node("p-1").at(zone="z", rack="r-four").alloc(gpu=4).build(),
        node("q-1").at(zone="z", rack="r-three").alloc(gpu=3).build(),
    ]
    sets = tuple(
        podset(name, count).requests(gpu=1).required("rack").build()
        for name, count in (("first", 1), ("second", 3), ("third", 3))
    )
    cluster = Cluster(tuple(nodes), (), (ZONE_RACK,))
    gang = Gang("job", Group("workload", children=sets))
    faithful = place(gang, cluster)
    complete = place(gang, cluster, search=Search.COMPLETE)
    assert isinstance(faithful, Unschedulable)
    assert isinstance(complete, Placement) and complete.found_by is Search.COMPLETE
    used = {name: {p.node for p in complete.pods if p.group == name} for name in ("first", "second", "third")}
    assert used["first"] | used["second"] | used["third"] == {"p-1", "q-1"}
    assert all(len(nodes_used) == 1 for nodes_used in used.values())
    assert used["second"] != used["third"]


def test_gangs_beyond_the_group_limit_are_not_searched() -> None:
    many = Gang(
        "job",
        Group(
            "job",
            required=ZONE,
            children=tuple(
                Group(f"g{i:03d}", required=RACK, pods=pods(f"g{i}", 1)) for i in range(MAX_GROUPS)
            ),
        ),
        policy=Policy.BINPACK,
    )
    result = place_gang(many, snapshot(NODES), policy=Policy.BINPACK, search=Search.COMPLETE)
    assert isinstance(result, Unschedulable)
    assert result.budget_exhausted
    assert (
        result.note
        == f"complete search not run: the gang has more than {MAX_GROUPS} groups, slices or pod shapes"
    )


def test_kueue_slices_are_kept_whole() -> None:
    # ra: a1 (2 GPUs), a2 (2)   rb: b1 (3), b2 (1)
    # "first" takes a GPU of ra (tie by domain id), leaving one host pair-slice there; rb holds
    # only one pair too. Complete puts "first" in rb and the two pairs on a1 and a2.
    nodes = [
        node("a1").at(zone="z", rack="ra").alloc(gpu=2).build(),
        node("a2").at(zone="z", rack="ra").alloc(gpu=2).build(),
        node("b1").at(zone="z", rack="rb").alloc(gpu=3).build(),
        node("b2").at(zone="z", rack="rb").alloc(gpu=1).build(),
    ]
    sets = (
        podset("first", 1).requests(gpu=1).required("rack").build(),
        podset("second", 4).requests(gpu=1).required("rack").slices(("host", 2)).build(),
    )
    cluster = Cluster(tuple(nodes), (), (ZONE_RACK,))
    gang = Gang("job", Group("workload", children=sets))
    assert isinstance(place(gang, cluster), Unschedulable)
    result = place(gang, cluster, search=Search.COMPLETE)
    assert isinstance(result, Placement)
    node_of = {p.pod: p.node for p in result.pods}
    assert node_of["first-0"] in ("b1", "b2")
    assert node_of["second-0"] == node_of["second-1"] != node_of["second-2"] == node_of["second-3"]
    assert {node_of["second-0"], node_of["second-2"]} == {"a1", "a2"}


def test_min_sub_group_chooses_the_children_that_fit_and_grows_elastic_pods() -> None:
    # r1: one node with 3 GPUs, r2: the same. Two of a (4 pods), b (2 of 3 pods) and c (3 pods)
    # must be satisfied; the faithful walk takes a and b (member order) and a fits no rack.
    nodes = [
        node("r1-1").at(zone="z", rack="r1").alloc(gpu=3).build(),
        node("r2-1").at(zone="z", rack="r2").alloc(gpu=3).build(),
    ]
    children = (
        Group("a", required=RACK, pods=pods("a", 4)),
        Group("b", required=RACK, min_member=2, pods=pods("b", 3)),
        Group("c", required=RACK, pods=pods("c", 3)),
    )
    gang = Gang("wf", Group("wf", required=ZONE, min_sub_group=2, children=children), policy=Policy.BINPACK)
    cluster = Cluster(tuple(nodes), (), (ZONE_RACK,))
    assert isinstance(place(gang, cluster), Unschedulable)
    result = place(gang, cluster, search=Search.COMPLETE)
    assert isinstance(result, Placement)
    by_group = {g: {p.node for p in result.pods if p.group == g} for g in "abc"}
    assert by_group["a"] == set()
    assert len(by_group["b"]) == len(by_group["c"]) == 1 and by_group["b"] != by_group["c"]
    assert len([p for p in result.pods if p.group == "b"]) == 3  # the elastic third pod found room


def test_a_leaf_of_many_distinct_pod_shapes_is_refused_without_a_traceback() -> None:
    """The search recurses once per run of same-shape pods: 1,500 shapes are too many to search."""
    nodes = [node(f"n{i}").at(rack=f"r{i % 4}").alloc(cpu=1000, pods=1000).build() for i in range(8)]
    pods = tuple(PodSpec(f"p{i}", i, Resources.parse({"cpu": f"{1000 + i}m"})) for i in range(1_500))
    tree = TopologyTree.build(Topology.create("t", [RACK, HOST]), nodes)
    space = NodeSpace(Snapshot.build(tree, []))
    outcome = ExactSearch(space, build(Group("root", pods=pods), None), SearchBudget()).run()
    assert (outcome.found, outcome.too_large) == (False, True)
