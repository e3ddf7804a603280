"""``Search.COMPLETE`` with pods of different sizes against an oracle that tries every assignment.

Hall's condition (the other property test) is exact for one pod shape only; here groups ask for
one or two GPUs per pod, so the oracle enumerates, per group, every multiset of nodes for its
pods and keeps the assignments that respect capacity and every required level.
"""

from __future__ import annotations

from itertools import combinations_with_replacement, product

from hypothesis import given, settings
from hypothesis import strategies as st

from builders import GPU, RACK, ZONE, node, topology
from toposched.engine import place
from toposched.model import Cluster, Gang, Group, Node, Placement, PodSpec, Policy, Resources, Search

TOPOLOGY = topology("zone", "rack", "host")
LEVELS = {"zone": ZONE, "rack": RACK, "host": TOPOLOGY.levels[-1]}

Spec = tuple[int, int, str | None]  # pods, GPUs per pod, required level (short name) or None


@st.composite
def cases(draw: st.DrawFn) -> tuple[list[Node], list[Spec], bool]:
    nodes = [
        node(f"n{i}")
        .at(zone=f"z{draw(st.integers(0, 1))}", rack=f"r{draw(st.integers(0, 1))}")
        .alloc(gpu=draw(st.integers(0, 4)))
        .build()
        for i in range(draw(st.integers(2, 4)))
    ]
    specs = [
        (
            draw(st.integers(1, 2)),
            draw(st.integers(1, 2)),
            draw(st.sampled_from([None, "zone", "rack", "host"])),
        )
        for _ in range(draw(st.integers(2, 3)))
    ]
    return nodes, specs, draw(st.booleans())


def gang_of(specs: list[Spec], kai: bool) -> Gang:
    groups = tuple(
        Group(
            f"g{i}",
            required=None if level is None else LEVELS[level],
            min_member=count if kai else None,
            pods=tuple(PodSpec(f"g{i}-{k}", k, Resources({GPU: gpus})) for k in range(count)),
        )
        for i, (count, gpus, level) in enumerate(specs)
    )
    return Gang("job", Group("job", children=groups), policy=Policy.BINPACK if kai else Policy.MIXED)


def domain(n: Node, level: str) -> tuple[str, ...]:
    keys = TOPOLOGY.levels[: TOPOLOGY.levels.index(LEVELS[level]) + 1]
    return tuple(n.labels[k] for k in keys)


def feasible(nodes: list[Node], specs: list[Spec]) -> bool:
    per_group = [list(combinations_with_replacement(range(len(nodes)), count)) for count, _, _ in specs]
    for choice in product(*per_group):
        used = [0] * len(nodes)
        for (_, gpus, _), where in zip(specs, choice, strict=True):
            for i in where:
                used[i] += gpus
        if any(used[i] > n.allocatable[GPU] for i, n in enumerate(nodes)):
            continue
        if all(
            level is None or len({domain(nodes[i], level) for i in where}) == 1
            for (_, _, level), where in zip(specs, choice, strict=True)
        ):
            return True
    return False


def check(placement: Placement, nodes: list[Node], specs: list[Spec]) -> None:
    by_name = {n.name: n for n in nodes}
    assert len(placement.pods) == sum(count for count, _, _ in specs)
    used: dict[str, int] = {}
    for pod in placement.pods:
        assert pod.node is not None
        used[pod.node] = used.get(pod.node, 0) + specs[int(pod.group[1:])][1]
    assert all(amount <= by_name[name].allocatable[GPU] for name, amount in used.items())
    for i, (_, _, level) in enumerate(specs):
        if level is not None:
            mine = {domain(by_name[p.node], level) for p in placement.pods if p.group == f"g{i}" and p.node}
            assert len(mine) == 1


@settings(max_examples=100, deadline=None)
@given(cases())
def test_complete_places_exactly_the_gangs_that_fit(case: tuple[list[Node], list[Spec], bool]) -> None:
    nodes, specs, kai = case
    result = place(gang_of(specs, kai), Cluster(tuple(nodes), (), (TOPOLOGY,)), search=Search.COMPLETE)
    if isinstance(result, Placement):
        check(result, nodes, specs)
    else:
        assert not feasible(nodes, specs), result.message
