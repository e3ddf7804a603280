"""``Snapshot.build`` (distinct resource maps read once, rows filled by indexing) agrees with its
definition: per member node, allocatable minus every bound pod's requests and one ``pods`` unit
per pod, over the sorted union of resource names."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from builders import GPU, node, running, topology
from toposched.model import PODS, Node, Resources, RunningPod
from toposched.snapshot import Snapshot
from toposched.topology import TopologyTree

SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
AMOUNTS = st.dictionaries(st.sampled_from(["cpu", GPU, "memory", PODS]), st.integers(0, 9), max_size=3)


@st.composite
def clusters(draw: st.DrawFn) -> tuple[list[Node], list[RunningPod]]:
    """Nodes (some cordoned, so outside the tree) and pods bound to them or to unknown nodes."""
    count = draw(st.integers(0, 8))
    nodes = []
    for i in range(count):
        built = node(f"n{i}").at().alloc(**draw(AMOUNTS))
        nodes.append(built.cordoned().build() if draw(st.integers(0, 5)) == 0 else built.build())
    targets = st.sampled_from([f"n{i}" for i in range(count + 1)])  # n{count} exists nowhere
    pods = [running(f"p{i}", draw(targets), **draw(AMOUNTS)) for i in range(draw(st.integers(0, 12)))]
    return nodes, pods


@SETTINGS
@given(clusters())
def test_free_is_allocatable_minus_bound_pods_and_their_slots(
    case: tuple[list[Node], list[RunningPod]],
) -> None:
    nodes, pods = case
    tree = TopologyTree.build(topology("host"), nodes)
    snapshot = Snapshot.build(tree, pods)
    members = set(tree.node_names)
    bound = [pod for pod in pods if pod.node in members]
    names = {PODS}.union(*(n.allocatable for n in tree.nodes), *(p.requests for p in bound))
    assert snapshot.resources == tuple(sorted(names))
    for member in tree.nodes:
        expected = {name: member.allocatable[name] for name in names}
        for pod in bound:
            if pod.node == member.name:
                for name in names:
                    expected[name] -= pod.requests[name] + (name == PODS)
        assert snapshot.free_of(member.name) == Resources(expected)
