"""A Kueue placement's per-pod records are built on first read: their announced number matches
what is built, and they agree with the assignments (every pod on a node of its PodSet's domains)."""

from __future__ import annotations

from collections import Counter

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from builders import gang, group, node, podset, topology
from toposched.engine import place_gang
from toposched.model import Gang, Placement
from toposched.snapshot import Snapshot
from toposched.topology import TopologyTree

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def gangs(draw: st.DrawFn) -> Gang:
    """One to three PodSets, possibly one as a leader/workers group, rack-required or preferred."""
    podsets = []
    for k in range(draw(st.integers(1, 3))):
        workers = podset(f"w{k}", draw(st.integers(0, 6))).requests(gpu=draw(st.integers(1, 2)))
        if draw(st.booleans()):
            workers = workers.required("rack") if draw(st.booleans()) else workers.preferred("rack")
        podsets.append(workers.build())
    if draw(st.booleans()):
        leader = podset("lead", 1).requests(gpu=1).build()
        podsets[0] = group("lws", leader, podset("w0", draw(st.integers(1, 4))).build(), preferred="rack")
    return gang(*podsets)


@SETTINGS
@given(gangs(), st.lists(st.integers(0, 4), min_size=1, max_size=12))
def test_pod_records_match_their_count_and_the_assignments(job: Gang, capacities: list[int]) -> None:
    # Racks of three hosts; a host's hostname label is its node name.
    nodes = [node(f"x{i}").at(rack=f"r{i // 3}").alloc(gpu=cap).build() for i, cap in enumerate(capacities)]
    tree = TopologyTree.build(topology("rack", "host"), nodes)
    result = place_gang(job, Snapshot.build(tree))
    if not isinstance(result, Placement):
        return
    size = len(result.pods)
    built = tuple(result.pods)
    assert size == len(built) == sum(a.count for a in result.assignments.values())
    for name, ta in result.assignments.items():
        on = Counter(p.node for p in built if p.group == name)
        assert on == Counter({d.values[-1]: d.count for d in ta.domains})
