"""``Search.COMPLETE`` against a brute-force oracle on random small clusters and multi-group gangs.

The oracle is written independently of the engine: it enumerates a domain for every group with
a required level (and the root's) and one lowest-level domain for every slice (two consecutive
pods), then decides whether the one-GPU pods fit with Hall's condition (every set of units, groups
or slices, needs no more pods than the free GPUs of the nodes any of them may use), which is exact
for one pod shape. Properties: no misses (the oracle finds a placement
⇒ complete places the gang) and no unsound placement (all pods placed, capacity, taints,
readiness and every required level honoured).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations, product

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from builders import GPU, node, topology
from toposched.engine import place
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
    SliceLayer,
    Toleration,
)
from toposched.model.node import TolerationOperator

TOPOLOGIES = {
    "rack/host": topology("rack", "host"),
    "zone/rack/host": topology("zone", "rack", "host"),
    "zone/rack": topology("zone", "rack"),
}
TOLERATE = (Toleration("maintenance", TolerationOperator.EXISTS, ""),)


@dataclass(frozen=True)
class Spec:
    """One group: its size, its constraint (mode, level) and whether it tolerates the taint."""

    size: int
    mode: str  # "required", "preferred" or "none"
    level: str
    tolerant: bool
    sliced: bool = False  # every 2 consecutive pods share one domain of the lowest level


@st.composite
def clusters(draw: st.DrawFn) -> tuple[str, list[Node]]:
    shape = draw(st.sampled_from(sorted(TOPOLOGIES)))
    nodes: list[Node] = []
    for i in range(draw(st.integers(2, 12))):
        builder = node(f"n{i:02d}").at(zone=f"z{draw(st.integers(0, 1))}", rack=f"r{draw(st.integers(0, 2))}")
        builder = builder.alloc(gpu=draw(st.integers(0, 4)))
        if draw(st.integers(0, 4)) == 0:
            builder = builder.taint("maintenance")
        if draw(st.integers(0, 9)) == 0:
            builder = builder.not_ready()
        nodes.append(builder.build())
    return shape, nodes


@st.composite
def gangs(draw: st.DrawFn, levels: tuple[str, ...]) -> tuple[list[Spec], str | None, bool]:
    """2-4 groups, a root level (or none) and whether the gang is KAI-style (else Kueue PodSets).
    A group required above the lowest level may come in slices of 2 (at most 4 slices in all)."""
    specs: list[Spec] = []
    slices = 0
    for _ in range(draw(st.integers(2, 4))):
        mode = draw(st.sampled_from(["required", "required", "preferred", "none"]))
        level = draw(st.sampled_from(levels))
        sliced = mode == "required" and level != levels[-1] and slices < 4 and draw(st.booleans())
        size = 2 * draw(st.integers(1, min(2, 4 - slices))) if sliced else draw(st.integers(1, 4))
        slices += size // 2 if sliced else 0
        specs.append(Spec(size, mode, level, draw(st.booleans()), sliced))
    kai = draw(st.booleans())
    root = draw(st.sampled_from([None, *levels[:-1]])) if kai else None
    return specs, root, kai


def build_gang(specs: list[Spec], root: str | None, kai: bool, levels: tuple[str, ...]) -> Gang:
    groups = tuple(
        Group(
            f"g{i}",
            required=spec.level if spec.mode == "required" else None,
            preferred=spec.level if spec.mode == "preferred" else None,
            slices=(SliceLayer(levels[-1], 2),) if spec.sliced else (),
            min_member=spec.size if kai else None,
            pods=tuple(
                PodSpec(f"g{i}-{k}", k, Resources({GPU: 1}), TOLERATE if spec.tolerant else ())
                for k in range(spec.size)
            ),
        )
        for i, spec in enumerate(specs)
    )
    policy = Policy.BINPACK if kai else Policy.MIXED
    return Gang("job", Group("job", required=root, children=groups), policy=policy)


# -- the oracle -----------------------------------------------------------------------------------


def usable(n: Node, levels: tuple[str, ...], tolerant: bool) -> bool:
    tainted = any(t.key == "maintenance" for t in n.taints)
    return n.schedulable and all(k in n.labels for k in levels) and (tolerant or not tainted)


def path(n: Node, levels: tuple[str, ...], level: str) -> tuple[str, ...]:
    return tuple(n.labels[k] for k in levels[: levels.index(level) + 1])


def feasible(nodes: list[Node], levels: tuple[str, ...], specs: list[Spec], root: str | None) -> bool:
    members = [n for n in nodes if all(k in n.labels for k in levels) and n.schedulable]
    root_domains = {path(n, levels, root) for n in members} if root else {()}
    for root_domain in root_domains:
        inside = [n for n in members if root is None or path(n, levels, root) == root_domain]
        choices = []
        for spec in specs:
            if spec.mode == "required":
                choices.append(sorted({path(n, levels, spec.level) for n in inside}))
            else:
                choices.append([None])
        for picked in product(*choices):
            allowed = [
                [
                    n
                    for n in inside
                    if usable(n, levels, s.tolerant) and (d is None or path(n, levels, s.level) == d)
                ]
                for s, d in zip(specs, picked, strict=True)
            ]
            if any(fits_units(nodes, units) for units in unit_choices(levels, specs, allowed)):
                return True
    return False


def unit_choices(
    levels: tuple[str, ...], specs: list[Spec], allowed: list[list[Node]]
) -> list[list[tuple[int, set[str]]]]:
    """Every way to give each slice a lowest-level domain: units (pods, node names) per way."""
    options: list[list[list[tuple[int, set[str]]]]] = []
    for spec, nodes in zip(specs, allowed, strict=True):
        if not spec.sliced:
            options.append([[(spec.size, {n.name for n in nodes})]])
            continue
        leaves = sorted({path(n, levels, levels[-1]) for n in nodes})
        per_slice = [(2, {n.name for n in nodes if path(n, levels, levels[-1]) == leaf}) for leaf in leaves]
        options.append([list(combo) for combo in product(per_slice, repeat=spec.size // 2)])
    return [[unit for part in way for unit in part] for way in product(*options)]


def fits_units(nodes: list[Node], units: list[tuple[int, set[str]]]) -> bool:
    """Hall's condition: every set of units needs no more pods than the GPUs they may use."""
    free = {n.name: n.allocatable[GPU] for n in nodes}
    for k in range(1, len(units) + 1):
        for subset in combinations(units, k):
            reach = set().union(*(names for _, names in subset))
            if sum(size for size, _ in subset) > sum(free[name] for name in reach):
                return False
    return True


def valid(
    placement: Placement, nodes: list[Node], levels: tuple[str, ...], specs: list[Spec], root: str | None
) -> None:
    by_name = {n.name: n for n in nodes}
    assert len(placement.pods) == sum(s.size for s in specs)  # all or nothing
    used: dict[str, int] = {}
    for pod in placement.pods:
        assert pod.node is not None
        spec = specs[int(pod.group[1:])]
        assert usable(by_name[pod.node], levels, spec.tolerant), pod
        used[pod.node] = used.get(pod.node, 0) + 1
    for name, count in used.items():
        assert count <= by_name[name].allocatable[GPU], name
    for i, spec in enumerate(specs):
        mine = [by_name[p.node] for p in placement.pods if p.group == f"g{i}" and p.node is not None]
        if spec.mode == "required":
            assert len({path(n, levels, spec.level) for n in mine}) == 1, spec
        if spec.sliced:
            pairs: dict[int, set[tuple[str, ...]]] = {}
            for p in placement.pods:
                if p.group == f"g{i}" and p.node is not None:
                    pairs.setdefault(p.index // 2, set()).add(path(by_name[p.node], levels, levels[-1]))
            assert all(len(leaves) == 1 for leaves in pairs.values()), spec
    if root is not None:
        assert len({path(by_name[p.node], levels, root) for p in placement.pods if p.node}) == 1


@st.composite
def cases(draw: st.DrawFn) -> tuple[str, list[Node], list[Spec], str | None, bool]:
    shape, nodes = draw(clusters())
    specs, root, kai = draw(gangs(TOPOLOGIES[shape].levels))
    return shape, nodes, specs, root, kai


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases())
def test_complete_misses_nothing_and_places_only_valid_gangs(
    case: tuple[str, list[Node], list[Spec], str | None, bool],
) -> None:
    shape, nodes, specs, root, kai = case
    topo = TOPOLOGIES[shape]
    cluster = Cluster(tuple(nodes), (), (topo,))
    result = place(build_gang(specs, root, kai, topo.levels), cluster, topology=topo, search=Search.COMPLETE)
    if isinstance(result, Placement):
        valid(result, nodes, topo.levels, specs, root)
    else:
        assert not result.budget_exhausted
        assert not feasible(nodes, topo.levels, specs, root), result.message
