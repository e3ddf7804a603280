"""The hierarchical solver (KAI semantics): the seeds' examples, minimums, running pods, several
topologies, configuration errors and backtracking."""

from __future__ import annotations

from builders import GPU, HOST, RACK, ZONE, node, running, topology
from toposched.engine import place, place_gang
from toposched.model import Cluster, Gang, Group, Node, Placement, PodSpec, Policy, Resources, Unschedulable
from toposched.snapshot import Snapshot
from toposched.topology import TopologyTree

ONE_GPU = Resources({GPU: 1})
ZONE_RACK = topology("zone", "rack", "host", name="cluster-topology")


def pods(prefix: str, count: int, requests: Resources = ONE_GPU) -> tuple[PodSpec, ...]:
    return tuple(PodSpec(f"{prefix}-{i}", i, requests) for i in range(count))


def snapshot(nodes: list[Node], running_pods: list = [], topo=ZONE_RACK) -> Snapshot:  # noqa: B006
    return Snapshot.build(TopologyTree.build(topo, nodes), running_pods)


def placed(result: Placement | Unschedulable) -> Placement:
    assert isinstance(result, Placement), getattr(result, "message", result)
    return result


def labels_of(nodes: list[Node]) -> dict[str, dict[str, str]]:
    return {n.name: dict(n.labels) for n in nodes}


def kai_gang(root: Group) -> Gang:
    return Gang("job", root, topology=root.topology, kind="PodGroup", policy=Policy.BINPACK)


# The topology seed's worked example, one GPU per node:
#
#   zone-a ── rack-a1: a1-1 a1-2
#          ├─ rack-a2: a2-1
#          ├─ rack-a3: a3-1
#          └─ rack-a4: a4-1
#   zone-b ── rack-b1: b1-1 b1-2
#          ├─ rack-b2: b2-1 b2-2
#          └─ rack-b3: b3-1 b3-2
SEED_RACKS = {"a1": 2, "a2": 1, "a3": 1, "a4": 1, "b1": 2, "b2": 2, "b3": 2}
SEED_NODES = [
    node(f"{rack}-{i}").at(zone=f"zone-{rack[0]}", rack=f"rack-{rack}").alloc(gpu=1).build()
    for rack, count in SEED_RACKS.items()
    for i in range(1, count + 1)
]


def test_seed_example_zone_required_rack_preferred() -> None:
    root = Group(
        "distributed-training",
        required=ZONE,
        preferred=RACK,
        min_member=3,
        pods=pods("worker", 3),
        topology="cluster-topology",
    )
    result = placed(place_gang(kai_gang(root), snapshot(SEED_NODES), policy=Policy.BINPACK))
    labels = labels_of(SEED_NODES)
    nodes = [p.node for p in sorted(result.pods, key=lambda p: p.index)]
    # No rack holds 3 pods; zone A (5 free) is fuller than zone B (6 free), so zone A.
    assert {labels[n][ZONE] for n in nodes if n} == {"zone-a"}
    # Rack A1 (most free) is filled first, so the pods use 2 racks instead of 3. A2-A4 tie: the
    # seed sends the third pod to rack A2 (smaller id first; KAI's later-id rule would give A4).
    assert nodes == ["a1-1", "a1-2", "a2-1"]
    assert result.assignments["distributed-training"].levels == (HOST,)


# The segments seed's TFJob: 16 one-GPU workers in 4 segments of 4, each segment required in one
# rack, the whole job required in one zone; chief and 2 PS are CPU-only.
#
#   zone-a ── rack-a1..a4: 4 nodes each, 4 GPUs per node (zone-b the same); zone-a's racks
#   a1 and a2 are half used by other jobs.
TF_NODES = [
    node(f"{z}{r}-{n}").at(zone=f"zone-{z}", rack=f"rack-{z}{r}").alloc(gpu=4, cpu=64).build()
    for z in "ab"
    for r in range(1, 5)
    for n in range(1, 5)
]
TF_USED = [running(f"other-{r}-{n}", f"a{r}-{n}", gpu=2) for r in (1, 2) for n in range(1, 5)]


def tfjob() -> Gang:
    segments = tuple(
        Group(f"worker-{s}", required=RACK, min_member=4, pods=pods(f"w{s}", 4), topology="cluster-topology")
        for s in range(4)
    )
    cpu = Resources({"cpu": 4000})
    root = Group(
        "tfjob",
        required=ZONE,
        topology="cluster-topology",
        children=(
            Group("chief", min_member=1, pods=pods("chief", 1, cpu)),
            Group("ps", min_member=2, pods=pods("ps", 2, cpu)),
            Group("worker", min_sub_group=4, children=segments),
        ),
    )
    return kai_gang(root)


def test_seed_tfjob_segments_land_in_racks_of_one_zone() -> None:
    result = placed(place_gang(tfjob(), snapshot(TF_NODES, TF_USED), policy=Policy.BINPACK))
    labels = labels_of(TF_NODES)
    assert len(result.pods) == 19
    assert {labels[str(p.node)][ZONE] for p in result.pods} == {"zone-a"}  # fuller zone
    for s in range(4):
        racks = {labels[str(p.node)][RACK] for p in result.pods if p.group == f"worker-{s}"}
        assert len(racks) == 1, (s, racks)
    # Bin-packing: segments go to the half-used racks first (8 free GPUs each).
    used = {labels[str(p.node)][RACK] for p in result.pods if p.group.startswith("worker-")}
    assert used == {"rack-a1", "rack-a2"}


def test_tfjob_is_all_or_nothing_when_the_workers_cannot_fit() -> None:
    busy = [running(f"busy-{n.name}", n.name, gpu=3) for n in TF_NODES]  # 4 free GPUs per rack
    result = place_gang(tfjob(), snapshot(TF_NODES, busy), policy=Policy.BINPACK)
    assert isinstance(result, Placement)  # each segment (4 GPUs) still fits one rack of zone-a
    busy += [running(f"more-{n.name}", n.name, gpu=1) for n in TF_NODES if n.name.endswith("-1")]
    result = place_gang(tfjob(), snapshot(TF_NODES, busy), policy=Policy.BINPACK)
    # 12 free GPUs per zone for 16 workers: nothing is placed, the zone level says why.
    assert isinstance(result, Unschedulable) and not result.placed
    assert result.level == ZONE and "couldn't be satisfied" in result.message


#   r1: h1 (2 gpu)   r2: h2 (2 gpu)   r3: h3 (4 gpu)    all in zone z1
FLAT = [
    node("h1").at(zone="z1", rack="r1").alloc(gpu=2).build(),
    node("h2").at(zone="z1", rack="r2").alloc(gpu=2).build(),
    node("h3").at(zone="z1", rack="r3").alloc(gpu=4).build(),
]


def test_running_pods_count_toward_the_minimum_and_pin_the_required_domain() -> None:
    members = (
        PodSpec("p-0", 0, ONE_GPU, node="h2"),
        *pods("p", 3)[1:],
    )
    root = Group("pg", required=RACK, min_member=2, pods=members, topology="cluster-topology")
    result = placed(place_gang(kai_gang(root), snapshot(FLAT), policy=Policy.BINPACK))
    where = {p.pod: p.node for p in result.pods}
    # r2 already holds p-0: p-1 joins it; p-2 is elastic and finds no room left in r2.
    assert where == {"p-0": "h2", "p-1": "h2"}


def test_leaf_with_min_member_zero_never_blocks_the_gang() -> None:
    root = Group(
        "pg",
        children=(
            Group("core", min_member=2, pods=pods("core", 2)),
            Group("extra", min_member=0, pods=pods("extra", 10)),
        ),
    )
    result = placed(place_gang(kai_gang(root), snapshot(FLAT), policy=Policy.BINPACK))
    counts = {g: sum(1 for p in result.pods if p.group == g) for g in ("core", "extra")}
    assert counts == {"core": 2, "extra": 6}  # 8 GPUs in all


def test_unsatisfiable_minimum_places_nothing() -> None:
    root = Group(
        "pg",
        children=(
            Group("a", min_member=5, pods=pods("a", 5)),
            Group("b", min_member=4, pods=pods("b", 4)),
        ),
    )
    result = place_gang(kai_gang(root), snapshot(FLAT), policy=Policy.BINPACK)
    assert isinstance(result, Unschedulable) and not result.placed


def test_topology_name_without_levels_or_unknown_level_stays_pending() -> None:
    for root, fact in [
        (Group("pg", pods=pods("p", 1), topology="cluster-topology"), "no topology constraints"),
        (Group("pg", required="nowhere", pods=pods("p", 1), topology="cluster-topology"), "nowhere"),
        (Group("pg", required=RACK, pods=pods("p", 1), topology="missing"), "does not exist"),
    ]:
        result = place_gang(kai_gang(root), snapshot(FLAT), policy=Policy.BINPACK)
        assert isinstance(result, Unschedulable)
        assert fact in result.message


def test_parent_candidate_is_dropped_when_a_child_cannot_fit() -> None:
    # Both zones fit 4 pods, z1 is fuller, but in z1 no rack can take a 2-pod child.
    #   z1 ── r1: k1 (1 gpu)  r2: k2 (1 gpu)  r3: k3 (1 gpu)  r4: k4 (1 gpu)
    #   z2 ── r5: k5 (4 gpu)  r6: k6 (2 gpu)
    nodes = [
        *(node(f"k{i}").at(zone="z1", rack=f"r{i}").alloc(gpu=1).build() for i in range(1, 5)),
        node("k5").at(zone="z2", rack="r5").alloc(gpu=4).build(),
        node("k6").at(zone="z2", rack="r6").alloc(gpu=2).build(),
    ]
    kids = tuple(
        Group(f"c{i}", required=RACK, min_member=2, pods=pods(f"c{i}", 2), topology="cluster-topology")
        for i in range(2)
    )
    root = Group("pg", required=ZONE, children=kids, topology="cluster-topology")
    result = placed(place_gang(kai_gang(root), snapshot(nodes), policy=Policy.BINPACK))
    assert {p.node for p in result.pods} <= {"k5", "k6"}
    assert {p.node for p in result.pods if p.group == "c0"} == {"k6"}  # the fuller rack first


def test_groups_use_their_own_topology_through_place_on_a_cluster() -> None:
    # Two Topology objects over the same nodes: racks and zones cut differently.
    rack_topo = topology("rack", name="racks")
    zone_topo = topology("zone", name="zones")
    nodes = [
        node("m1").at(zone="zx", rack="ra").alloc(gpu=2).build(),
        node("m2").at(zone="zy", rack="ra").alloc(gpu=2).build(),
        node("m3").at(zone="zx", rack="rb").alloc(gpu=2).build(),
    ]
    root = Group(
        "pg",
        children=(
            Group("by-rack", required=RACK, min_member=3, pods=pods("r", 3), topology="racks"),
            Group("by-zone", required=ZONE, min_member=1, pods=pods("z", 1), topology="zones"),
        ),
    )
    cluster = Cluster.create(nodes, topologies=[rack_topo, zone_topo])
    result = placed(place(kai_gang(root), cluster))
    where = {p.pod: p.node for p in result.pods}
    assert {where[f"r-{i}"] for i in range(3)} == {"m1", "m2"}  # rack ra spans both zones
    # by-rack (first by name) fills m1 and one GPU of m2; zone zy (m2, 1 free) is then fuller
    # relative to the request than zx (m3, 2 free).
    assert where["z-0"] == "m2"
    assert result.assignments["by-zone"].levels == (ZONE,)


def test_deep_tree_under_a_kueue_policy_uses_the_hierarchical_solver() -> None:
    leaf = Group("leaf", required=RACK, pods=pods("p", 2))
    root = Group("root", children=(Group("mid", children=(Group("sub", children=(leaf,)),)),))
    result = placed(place_gang(Gang("job", root), snapshot(FLAT), policy=Policy.MIXED))
    assert result.policy is Policy.MIXED  # the policy asked for orders it and is reported
    assert len({p.node for p in result.pods}) == 1


def test_results_are_deterministic_whatever_the_node_order() -> None:
    first = place_gang(tfjob(), snapshot(TF_NODES, TF_USED), policy=Policy.BINPACK)
    second = place_gang(tfjob(), snapshot(list(reversed(TF_NODES)), TF_USED), policy=Policy.BINPACK)
    assert first == second
