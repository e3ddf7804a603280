"""Properties of hierarchical (KAI-style) placements: capacity never exceeded, every group's
required level honoured, minimums all-or-nothing, and results independent of node order."""

from __future__ import annotations

import random
from dataclasses import dataclass

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from builders import HOST, RACK, ZONE, topology, zones_of_racks
from toposched.engine import place_gang, usage_of
from toposched.model import (
    Gang,
    Group,
    Node,
    Placement,
    PodSpec,
    Policy,
    Resources,
    RunningPod,
    Unschedulable,
)
from toposched.snapshot import Snapshot
from toposched.topology import TopologyTree

LEVELS = (ZONE, RACK, HOST)
TOPOLOGY = topology("zone", "rack", "host", name="t")


@dataclass(frozen=True)
class Scenario:
    nodes: list[Node]
    others: list[RunningPod]
    gang: Gang

    def snapshot(self, nodes: list[Node] | None = None) -> Snapshot:
        return Snapshot.build(TopologyTree.build(TOPOLOGY, nodes or self.nodes), self.others)


@st.composite
def constraint(draw: st.DrawFn) -> dict[str, str | None]:
    required = draw(st.sampled_from([None, ZONE, RACK]))
    allowed = [None, *LEVELS[LEVELS.index(required) :]] if required else [None, *LEVELS]
    preferred = draw(st.sampled_from(allowed))
    if required is None and preferred is None:
        return {}
    return {"required": required, "preferred": preferred, "topology": "t"}


@st.composite
def scenarios(draw: st.DrawFn) -> Scenario:
    nodes, others = zones_of_racks(draw)
    pin = draw(st.sampled_from([None, *[n.name for n in nodes]]))
    counter = iter(range(1000))

    def leaf(name: str) -> Group:
        count = draw(st.integers(0, 4))
        cpu = Resources({"cpu": 1000 * draw(st.integers(1, 2))})
        pods = []
        for i in range(count):
            on = pin if pin is not None and draw(st.integers(0, 4)) == 0 else None
            pods.append(PodSpec(f"{name}-{i}", i, cpu, node=on))
        minimum = draw(st.sampled_from([None, *range(count + 1)]))
        return Group(name, min_member=minimum, pods=tuple(pods), **draw(constraint()))

    def inner(name: str, depth: int) -> Group:
        kids = []
        for _ in range(draw(st.integers(1, 3))):
            child = f"g{next(counter)}"
            kids.append(inner(child, depth + 1) if depth < 2 and draw(st.booleans()) else leaf(child))
        threshold = draw(st.sampled_from([None, *range(len(kids) + 1)]))
        return Group(name, min_sub_group=threshold, children=tuple(kids), **draw(constraint()))

    gang = Gang("job", inner("root", 0), policy=Policy.BINPACK)
    return Scenario(nodes, others, gang)


SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _groups(group: Group) -> list[Group]:
    return [group, *(g for child in group.children for g in _groups(child))]


def _satisfied(group: Group, placed: set[str]) -> bool:
    if group.is_leaf:
        need = len(group.pods) if group.min_member is None else group.min_member
        return sum(1 for p in group.pods if p.name in placed) >= need
    need = len(group.children) if group.min_sub_group is None else group.min_sub_group
    return sum(1 for c in group.children if _satisfied(c, placed)) >= need


@SETTINGS
@given(scenarios())
def test_capacity_is_never_exceeded(s: Scenario) -> None:
    snapshot = s.snapshot()
    result = place_gang(s.gang, snapshot, policy=Policy.BINPACK)
    if isinstance(result, Unschedulable):
        return
    fresh = {p.node for p in result.pods if p.node is not None and not _pinned(s.gang, p.pod)}
    after = snapshot.clone()
    after.add_usage("job", usage_of(result, s.gang))
    for name in fresh:
        free = after.free_of(name)
        assert all(amount >= 0 for amount in free.values()), (name, free)


def _pinned(gang: Gang, pod: str) -> bool:
    return any(p.name == pod and p.node is not None for leaf in gang.leaves() for p in leaf.pods)


@SETTINGS
@given(scenarios())
def test_required_levels_hold_for_every_group(s: Scenario) -> None:
    result = place_gang(s.gang, s.snapshot(), policy=Policy.BINPACK)
    if not isinstance(result, Placement):
        return
    domain = {p.pod: p.domain for p in result.pods}
    for group in _groups(s.gang.root):
        if group.required is None:
            continue
        depth = LEVELS.index(group.required) + 1
        seen = {domain[p.name][:depth] for p in group.all_pods() if p.name in domain}
        assert len(seen) <= 1, (group.name, seen)


@SETTINGS
@given(scenarios())
def test_minimums_are_all_or_nothing(s: Scenario) -> None:
    result = place_gang(s.gang, s.snapshot(), policy=Policy.BINPACK)
    if isinstance(result, Unschedulable):
        assert not result.placed and result.message
        return
    placed = {p.pod for p in result.pods}
    assert all(p.node is not None for p in result.pods)
    assert {p.name for leaf in s.gang.leaves() for p in leaf.pods if p.node is not None} <= placed
    assert _satisfied(s.gang.root, placed)


@SETTINGS
@given(scenarios(), st.randoms(use_true_random=False))
def test_node_order_does_not_change_the_result(s: Scenario, rnd: random.Random) -> None:
    first = place_gang(s.gang, s.snapshot(), policy=Policy.BINPACK)
    shuffled = list(s.nodes)
    rnd.shuffle(shuffled)
    assert place_gang(s.gang, s.snapshot(shuffled), policy=Policy.BINPACK) == first
