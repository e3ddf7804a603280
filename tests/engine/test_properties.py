"""Properties of every placement: capacity never exceeded, required levels and slices honoured,
all-or-nothing, and results independent of the order nodes are listed in."""

from __future__ import annotations

import random
from dataclasses import dataclass

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from builders import BLOCK, HOST, RACK, group, node, podset, running, topology
from toposched.engine import place_gang, usage_of
from toposched.model import Gang, Group, Node, Placement, Policy, RunningPod, Unschedulable
from toposched.snapshot import Snapshot
from toposched.topology import TopologyTree


@dataclass(frozen=True)
class Scenario:
    levels: tuple[str, ...]
    nodes: list[Node]
    pods: list[RunningPod]
    gang: Gang
    policy: Policy

    def snapshot(self, nodes: list[Node] | None = None) -> Snapshot:
        return Snapshot.build(TopologyTree.build(topology(*self.levels), nodes or self.nodes), self.pods)


@st.composite
def scenarios(draw: st.DrawFn) -> Scenario:
    by_host = draw(st.booleans())
    levels = ("block", "rack", "host") if by_host else ("block", "rack")
    keys = [BLOCK, RACK, HOST] if by_host else [BLOCK, RACK]
    nodes: list[Node] = []
    pods: list[RunningPod] = []
    for b in range(draw(st.integers(1, 3))):
        for r in range(draw(st.integers(1, 3))):
            for n in range(draw(st.integers(1, 4))):
                name = f"n-{b}-{r}-{n}"
                builder = node(name).labels({BLOCK: f"b{b}", RACK: f"r{r}", HOST: name})
                builder.alloc(cpu=draw(st.integers(0, 6)), pods=draw(st.sampled_from([3, 110])))
                if draw(st.integers(0, 9)) == 0:
                    builder.taint("dedicated", "x")
                nodes.append(builder.build())
                if draw(st.booleans()):
                    pods.append(running(f"used-{name}", name, cpu=draw(st.integers(0, 3))))
    children: list[Group] = []
    for c in range(draw(st.integers(1, 2))):
        count = draw(st.integers(1, 8))
        level = draw(st.sampled_from(keys))
        mode = draw(st.sampled_from(["required", "preferred", "unconstrained"]))
        builder = podset(f"ps{c}", count).requests(cpu=draw(st.integers(1, 2)))
        if draw(st.booleans()):
            builder = builder.tolerates("dedicated")
        if draw(st.integers(0, 3)) == 0 and mode != "unconstrained":
            leader = podset(f"leader{c}", 1).requests(cpu=draw(st.integers(1, 2))).build()
            children.append(group(f"g{c}", leader, builder.build(), **{mode: level}))
            continue
        if mode != "unconstrained":
            builder = getattr(builder, mode)(level)
        if draw(st.booleans()):
            below = keys[keys.index(level) :] if mode != "unconstrained" else keys
            size = draw(st.sampled_from([d for d in range(1, count + 1) if count % d == 0]))
            builder = builder.slices((draw(st.sampled_from(below)), size))
        children.append(builder.build())
    job = Gang("job", Group("workload", children=tuple(children)))
    return Scenario(levels, nodes, pods, job, draw(st.sampled_from(list(Policy))))


SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _domain(pod_domain: tuple[str, ...], levels: tuple[str, ...], level: str) -> tuple[str, ...]:
    return pod_domain[: levels.index(level) + 1]


@SETTINGS
@given(scenarios())
def test_capacity_is_never_exceeded(s: Scenario) -> None:
    snapshot = s.snapshot()
    result = place_gang(s.gang, snapshot, policy=s.policy)
    if isinstance(result, Unschedulable):
        return
    after = snapshot.clone()
    usage = usage_of(result, s.gang)
    after.add_usage("job", usage)
    for name, used in usage.items():
        free = after.free_of(name)
        assert all(free[r] >= 0 for r in used), (name, used, snapshot.free_of(name))


@SETTINGS
@given(scenarios())
def test_all_or_nothing(s: Scenario) -> None:
    result = place_gang(s.gang, s.snapshot(), policy=s.policy)
    if isinstance(result, Unschedulable):
        assert result.message and not result.placed
        return
    assert len(result.pods) == s.gang.size
    assert all(p.node is not None for p in result.pods)
    assert sorted((p.group, p.pod) for p in result.pods) == sorted(
        (leaf.name, pod.name) for leaf in s.gang.leaves() for pod in leaf.pods
    )
    for leaf in s.gang.leaves():
        assert result.assignments[leaf.name].count == len(leaf.pods)


@SETTINGS
@given(scenarios())
def test_required_levels_and_slices_are_honoured(s: Scenario) -> None:
    result = place_gang(s.gang, s.snapshot(), policy=s.policy)
    if not isinstance(result, Placement):
        return
    levels = topology(*s.levels).levels
    by_group: dict[str, list[tuple[int, tuple[str, ...]]]] = {}
    for pod in result.pods:
        by_group.setdefault(pod.group, []).append((pod.index, pod.domain))
    for child in s.gang.root.children:
        members = [child] if child.is_leaf else list(child.children)
        if child.required is not None:
            domains = {_domain(d, levels, child.required) for m in members for _, d in by_group[m.name]}
            assert len(domains) == 1, (child.name, domains)
        for member in members:
            slices = member.slices
            if not slices:
                continue
            placed = [d for _, d in sorted(by_group[member.name])]
            size = slices[0].size
            for start in range(0, len(placed), size):
                chunk = {_domain(d, levels, slices[0].level) for d in placed[start : start + size]}
                assert len(chunk) == 1, (member.name, start, chunk)


@SETTINGS
@given(scenarios(), st.randoms(use_true_random=False))
def test_node_order_does_not_change_the_result(s: Scenario, rnd: random.Random) -> None:
    first = place_gang(s.gang, s.snapshot(), policy=s.policy)
    shuffled = list(s.nodes)
    rnd.shuffle(shuffled)
    second = place_gang(s.gang, s.snapshot(shuffled), policy=s.policy)
    assert first == second
