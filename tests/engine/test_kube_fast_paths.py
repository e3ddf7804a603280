"""kube-scheduler's placement worked out at once agrees with its readable twin, pod by pod.

Pairs: ``KubeNodes.fill`` / ``KubeNodes.pick`` one pod at a time, each charged;
``KubeNodes.fullness_each`` / ``KubeNodes.fullness`` per placement; ``place_kube`` (``EachPlacer``:
every candidate of a group at once, alike pods counted rather than simulated) / the same with
``by_pod=True`` (``KubePlacer``: each candidate on its own, every pod through ``pick``) on clusters
with taints, node selectors, overcommitted nodes, alike and mixed pods, bound pods and nested
CompositePodGroups; and which of two failing groups names the refusal.
"""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from builders import RACK, ZONE, kube_gang, node, running, topology
from toposched.engine.core.space import NodeSpace
from toposched.engine.kube.nodes import KubeNodes
from toposched.engine.kube.podgroups import place_kube
from toposched.model import Group, Node, Placement, PodSpec, Policy, Resources, RunningPod, Toleration
from toposched.snapshot import Snapshot
from toposched.topology import TopologyTree

SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
TOPOLOGY = topology("zone", "rack", "host")
SHAPES = [  # requests, tolerations, selector
    (Resources.parse({"cpu": "1"}), (), {}),
    (Resources.parse({"cpu": "2", "memory": "1Gi"}), (), {}),
    (Resources.parse({"cpu": "1"}), (Toleration("dedicated"),), {}),
    (Resources.parse({"memory": "2Gi"}), (), {"tier": "a"}),
    (Resources(), (), {}),  # the pods slot only
]


def cluster(draw: st.DrawFn) -> tuple[list[Node], list[RunningPod]]:
    """1-2 zones of 1-3 racks (r0, r1, ... in every zone) of 1-4 nodes: 0-6 CPUs, 0-4 GiB,
    3-110 pod slots, some tainted, tier a or b; some run another job's pod, now and then
    more than the node holds (free capacity below zero)."""
    nodes: list[Node] = []
    others: list[RunningPod] = []
    for z in range(draw(st.integers(1, 2))):
        for r in range(draw(st.integers(1, 3))):
            for n in range(draw(st.integers(1, 4))):
                name = f"n-{z}-{r}-{n}"
                built = (
                    node(name)
                    .at(zone=f"z{z}", rack=f"r{r}")
                    .labels(tier=draw(st.sampled_from(["a", "b"])))
                    .alloc(
                        cpu=draw(st.integers(0, 6)),
                        memory=f"{draw(st.integers(0, 4))}Gi",
                        pods=draw(st.sampled_from([3, 110])),
                    )
                )
                if draw(st.integers(0, 4)) == 0:
                    built.taint("dedicated")
                nodes.append(built.build())
                if draw(st.integers(0, 3)) == 0:
                    others.append(running(f"used-{name}", name, cpu=draw(st.sampled_from([1, 7]))))
    return nodes, others


def pods(draw: st.DrawFn, name: str, nodes: list[Node]) -> tuple[PodSpec, ...]:
    """1-9 pods, all alike or each of a random shape, now and then one bound to a node."""
    count = draw(st.integers(1, 9))
    alike = draw(st.booleans())
    first = draw(st.integers(0, len(SHAPES) - 1))
    out = []
    for i in range(count):
        requests, tolerations, selector = SHAPES[first if alike else draw(st.integers(0, len(SHAPES) - 1))]
        on = draw(st.sampled_from([n.name for n in nodes])) if draw(st.integers(0, 9)) == 0 else None
        out.append(PodSpec(f"{name}-{i}", i, requests, tolerations, dict(selector), node=on))
    return tuple(out)


@st.composite
def scenarios(draw: st.DrawFn) -> tuple[Snapshot, Group]:
    nodes, others = cluster(draw)
    counter = iter(range(1000))

    def unit(depth: int = 0) -> Group:
        key = draw(st.sampled_from([None, ZONE, RACK]))
        name = f"g{next(counter)}"
        if depth == 2 or draw(st.booleans()):
            members = pods(draw, name, nodes)
            return Group(name, required=key, min_member=draw(st.integers(1, len(members))), pods=members)
        kids = tuple(unit(depth + 1) for _ in range(draw(st.integers(1, 3))))
        need = draw(st.sampled_from([None, *range(1, len(kids) + 1)]))
        return Group(name, required=key, min_sub_group=need, children=kids)

    root = kube_gang(*(unit() for _ in range(draw(st.integers(1, 3))))).root
    return Snapshot.build(TopologyTree.build(TOPOLOGY, nodes), others), root


@SETTINGS
@given(scenarios())
def test_place_kube_agrees_with_placing_every_pod_through_pick(scenario: tuple[Snapshot, Group]) -> None:
    snapshot, root = scenario
    gang = kube_gang(*root.children)
    fast = place_kube(gang, snapshot, policy=Policy.MIXED)
    assert fast == place_kube(gang, snapshot, policy=Policy.MIXED, by_pod=True)


def kube_nodes(snapshot: Snapshot, shapes: list[int]) -> tuple[NodeSpace, KubeNodes]:
    space = NodeSpace(snapshot)
    pods = [PodSpec(f"p{k}", k, SHAPES[k][0]) for k in shapes]
    return space, KubeNodes(space, [snapshot], pods)


@SETTINGS
@given(scenarios(), st.data())
def test_fill_agrees_with_picking_one_pod_at_a_time(
    scenario: tuple[Snapshot, Group], data: st.DataObject
) -> None:
    snapshot, _ = scenario
    k = data.draw(st.integers(0, len(SHAPES) - 1))
    requests, tolerations, selector = SHAPES[k]
    pod = PodSpec("p", 0, requests, tolerations, dict(selector))
    space, nodes = kube_nodes(snapshot, [k])
    rows = np.asarray(sorted(data.draw(st.sets(st.integers(0, space.size - 1)))), dtype=np.int64)
    count = data.draw(st.integers(0, 12))
    room = nodes.room(pod, rows, count)
    fast = nodes.fill(pod, count, rows).tolist()
    one_by_one: list[int] = []
    vec = nodes.vector(requests)
    while len(one_by_one) < count and (row := nodes.pick(pod, rows)) is not None:
        one_by_one.append(row)
        space.ledger.charge(np.asarray([row], dtype=np.int64), np.ones(1, dtype=np.int64), vec)
    assert fast == one_by_one
    assert min(int(room.sum()), count) == len(one_by_one)


@SETTINGS
@given(scenarios(), st.data())
def test_fullness_each_agrees_with_fullness_per_placement(
    scenario: tuple[Snapshot, Group], data: st.DataObject
) -> None:
    snapshot, _ = scenario
    space, nodes = kube_nodes(snapshot, list(range(len(SHAPES))))
    cols = nodes.cols  # cpu and memory
    parts = [
        np.asarray(sorted(data.draw(st.sets(st.integers(0, space.size - 1)))), dtype=np.int64)
        for _ in range(data.draw(st.integers(1, 4)))
    ]
    added = np.asarray([[data.draw(st.integers(0, 3000)) for _ in cols] for _ in parts], dtype=np.int64)
    starts = np.cumsum([0, *map(len, parts)])
    each = nodes.fullness_each(np.concatenate(parts), starts, added.reshape(len(parts), len(cols)))
    for part, extra, full in zip(parts, added, each.tolist(), strict=True):
        mark = space.ledger.mark()
        if len(part):  # the extra use charged on the placement's first node
            space.ledger.charge(part[:1], np.ones(1, dtype=np.int64), _vector(space, cols, extra))
        assert full == nodes.fullness(part)
        space.ledger.undo(mark)


def _vector(space: NodeSpace, cols: np.ndarray, amounts: np.ndarray) -> np.ndarray:
    vec = np.zeros(space.ledger.free.shape[1], dtype=np.int64)
    vec[cols] = amounts
    return vec


def test_of_two_failing_groups_the_one_reached_first_one_at_a_time_names_the_refusal() -> None:
    # A composite requiring a rack holds A (both of a1 and a2) then B. a1 fits only in r1; a2
    # and B name a level the topology lacks. One candidate at a time, r0 comes first: a1
    # fails there, A stops before a2, and B fails with an error. Child by child, a2 in r1
    # comes before B: the refusal must still name B.
    nodes = [
        node("n0").at(zone="z", rack="r0").alloc(cpu=1).build(),
        node("n1").at(zone="z", rack="r1").alloc(cpu=4).build(),
    ]
    snapshot = Snapshot.build(TopologyTree.build(TOPOLOGY, nodes))
    a1 = Group("a1", min_member=1, pods=(PodSpec("a1-0", 0, Resources.parse({"cpu": "3"})),))
    a2 = Group("a2", required="example.com/nothing", min_member=1, pods=(PodSpec("a2-0", 0),))
    b = Group("b", required="example.com/else", min_member=1, pods=(PodSpec("b-0", 0),))
    gang = kube_gang(
        Group(
            "c", required=RACK, min_sub_group=1, children=(Group("a", min_sub_group=2, children=(a1, a2)), b)
        )
    )
    fast = place_kube(gang, snapshot, policy=Policy.MIXED)
    assert fast == place_kube(gang, snapshot, policy=Policy.MIXED, by_pod=True)
    assert not isinstance(fast, Placement) and fast.group == "b"


def test_fullness_of_a_placement_whose_memory_times_100_passes_int64_is_exact() -> None:
    # Three nodes of 1 EiB: 3 * 2**60 bytes, times 100 is past int64's 9.2e18.
    nodes = [node(f"n{i}").at(zone="z", rack="r0").alloc(cpu=1, memory="1Ei").build() for i in range(3)]
    snapshot = Snapshot.build(TopologyTree.build(TOPOLOGY, nodes))
    space = NodeSpace(snapshot)
    half = Resources.parse({"memory": "512Pi"})
    kube = KubeNodes(space, [snapshot], [PodSpec("p", 0, half)])
    rows = np.arange(3, dtype=np.int64)
    space.ledger.charge(rows, np.ones(3, dtype=np.int64), kube.vector(half))
    # Half of the memory; of the cpu, the 100m each pod asking none counts as: (10 + 50) // 2.
    expected = 30
    assert kube.fullness(rows) == expected
    starts = np.asarray([0, 3], dtype=np.int64)
    assert kube.fullness_each(rows, starts, np.zeros((1, 2), dtype=np.int64)).tolist() == [expected]
