"""Properties of kube-scheduler placements (``Semantics.KUBE``), faithful and complete: capacity
never exceeded, every constraint's label value shared by the group's pods, every PodGroup and
CompositePodGroup at its minimum, the complete search keeping the faithful answer, and results
independent of node order."""

from __future__ import annotations

import random
from dataclasses import dataclass

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from builders import HOST, RACK, ZONE, kube_gang, topology, zones_of_racks
from toposched.engine import place_gang, usage_of
from toposched.model import (
    Gang,
    Group,
    Node,
    Placement,
    PodSpec,
    Resources,
    RunningPod,
    Search,
    Unschedulable,
)
from toposched.snapshot import Snapshot
from toposched.topology import TopologyTree

LEVELS = (ZONE, RACK, HOST)
TOPOLOGY = topology("zone", "rack", "host")
MODES = st.sampled_from([Search.FAITHFUL, Search.COMPLETE])


@dataclass(frozen=True)
class Scenario:
    nodes: list[Node]
    others: list[RunningPod]
    gang: Gang

    def snapshot(self, nodes: list[Node] | None = None) -> Snapshot:
        return Snapshot.build(TopologyTree.build(TOPOLOGY, nodes or self.nodes), self.others)

    def place(self, search: Search, nodes: list[Node] | None = None) -> Placement | Unschedulable:
        return place_gang(self.gang, self.snapshot(nodes), search=search)


@st.composite
def scenarios(draw: st.DrawFn) -> Scenario:
    """Racks named r0, r1, ... in every zone (one label value under two zones is one kube
    placement), PodGroups and (nested) CompositePodGroups with random keys, minimums and bound
    pods."""
    nodes, others = zones_of_racks(draw)
    counter = iter(range(1000))

    def pod_group() -> Group:
        name = f"g{next(counter)}"
        count = draw(st.integers(1, 4))
        pods = []
        for i in range(count):
            on = draw(st.sampled_from([n.name for n in nodes])) if draw(st.integers(0, 7)) == 0 else None
            pods.append(
                PodSpec(f"{name}-{i}", i, Resources({"cpu": 1000 * draw(st.integers(1, 2))}), node=on)
            )
        key = draw(st.sampled_from([None, ZONE, RACK]))
        return Group(name, required=key, min_member=draw(st.integers(1, count)), pods=tuple(pods))

    def unit(depth: int = 0) -> Group:
        if depth == 2 or draw(st.booleans()):
            return pod_group()
        kids = tuple(unit(depth + 1) for _ in range(draw(st.integers(1, 3))))
        key = draw(st.sampled_from([None, ZONE, RACK]))
        need = draw(st.sampled_from([None, *range(1, len(kids) + 1)]))
        return Group(f"c{next(counter)}", required=key, min_sub_group=need, children=kids)

    gang = kube_gang(*(unit() for _ in range(draw(st.integers(1, 3)))))
    return Scenario(nodes, others, gang)


SETTINGS = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _bound(gang: Gang) -> set[str]:
    return {p.name for p in gang.root.all_pods() if p.node is not None}


def _satisfied(group: Group, placed: set[str]) -> bool:
    """At the group's minimum: minCount pods, or minGroupCount children (basic: one)."""
    if group.is_leaf:
        return sum(1 for p in group.pods if p.name in placed) >= (group.min_member or 1)
    return sum(1 for c in group.children if _satisfied(c, placed)) >= (group.min_sub_group or 1)


@SETTINGS
@given(scenarios(), MODES)
def test_capacity_is_never_exceeded(s: Scenario, search: Search) -> None:
    snapshot = s.snapshot()
    result = place_gang(s.gang, snapshot, search=search)
    if isinstance(result, Unschedulable):
        return
    bound = _bound(s.gang)
    fresh = {p.node for p in result.pods if p.node is not None and p.pod not in bound}
    after = snapshot.clone()
    after.add_usage("job", usage_of(result, s.gang))
    for name in fresh:
        free = after.free_of(name)
        assert all(amount >= 0 for amount in free.values()), (name, free)


@SETTINGS
@given(scenarios(), MODES)
def test_every_group_keeps_to_one_value_of_its_label(s: Scenario, search: Search) -> None:
    result = s.place(search)
    if not isinstance(result, Placement):
        return
    domain = {p.pod: p.domain for p in result.pods}
    for group in s.gang.root.walk():
        if group.required is None:
            continue
        depth = LEVELS.index(group.required)
        seen = {domain[p.name][depth] for p in group.all_pods() if p.name in domain}
        assert len(seen) <= 1, (group.name, seen)


@SETTINGS
@given(scenarios(), MODES)
def test_every_group_of_the_workload_meets_its_minimum(s: Scenario, search: Search) -> None:
    result = s.place(search)
    if isinstance(result, Unschedulable):
        assert result.message and result.group is not None
        return
    placed = {p.pod for p in result.pods}
    assert all(p.node is not None for p in result.pods)
    assert _bound(s.gang) <= placed
    assert all(_satisfied(unit, placed) for unit in s.gang.root.children)


@SETTINGS
@given(scenarios())
def test_the_complete_search_keeps_the_faithful_answer(s: Scenario) -> None:
    faithful = s.place(Search.FAITHFUL)
    if isinstance(faithful, Placement):
        assert s.place(Search.COMPLETE) == faithful


@SETTINGS
@given(scenarios(), MODES, st.randoms(use_true_random=False))
def test_node_order_does_not_change_the_result(s: Scenario, search: Search, rnd: random.Random) -> None:
    first = s.place(search)
    shuffled = list(s.nodes)
    rnd.shuffle(shuffled)
    assert s.place(search, shuffled) == first
