"""What a Kueue placement takes per node is summed from the solver's rows (``PodRows``): the same
usage as counting pod by pod, without building a record per pod, and one value per distinct
amount."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from builders import GPU, gang, group, node, podset, topology
from toposched.engine import place_gang, usage_of
from toposched.engine.core.usage import PodRows
from toposched.model import Gang, Group, Placement, PodSpec, Policy, Resources
from toposched.snapshot import Snapshot
from toposched.topology import TopologyTree

SETTINGS = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _mixed(name: str, gpus: list[int]) -> Group:
    """A PodSet whose pods ask for different GPU counts (not one shape)."""
    pods = tuple(PodSpec(f"{name}-{i}", i, Resources({GPU: g})) for i, g in enumerate(gpus))
    return Group(name, preferred="rack", pods=pods)


@st.composite
def gangs(draw: st.DrawFn) -> Gang:
    """One to three PodSets (one shape, or mixed), possibly one as a leader/workers group."""
    podsets = []
    for k in range(draw(st.integers(1, 3))):
        if draw(st.booleans()):
            podsets.append(_mixed(f"m{k}", draw(st.lists(st.integers(1, 2), max_size=6))))
            continue
        workers = podset(f"w{k}", draw(st.integers(0, 6))).requests(gpu=draw(st.integers(1, 2)))
        if draw(st.booleans()):
            workers = workers.required("rack") if draw(st.booleans()) else workers.preferred("rack")
        podsets.append(workers.build())
    if draw(st.booleans()):
        leader = podset("lead", 1).requests(gpu=1, cpu=2).build()
        podsets[0] = group("lws", leader, podset("w0", draw(st.integers(1, 4))).build(), preferred="rack")
    return gang(*podsets)


@SETTINGS
@given(
    gangs(),
    st.lists(st.integers(0, 4), min_size=1, max_size=12),
    st.sampled_from([Policy.MIXED, Policy.BINPACK]),
)
def test_rows_give_the_usage_pod_by_pod_gives(job: Gang, capacities: list[int], policy: Policy) -> None:
    """Kueue's solver (mixed) and the hierarchical one (binpack) both keep their rows."""
    nodes = [
        node(f"x{i}").at(rack=f"r{i // 3}").alloc(gpu=cap, cpu=64).build() for i, cap in enumerate(capacities)
    ]
    snapshot = Snapshot.build(TopologyTree.build(topology("rack", "host"), nodes))
    result = place_gang(job, snapshot, policy=policy)
    if not isinstance(result, Placement) or not result.pods:
        return
    assert isinstance(result.pods, PodRows)
    by_rows = usage_of(result, job)
    assert result.pods._items is None  # no record per pod was built for it
    assert by_rows == usage_of(replace(result, pods=tuple(result.pods)), job)  # pod by pod


def test_nodes_that_take_the_same_share_one_value() -> None:
    nodes = [node(f"x{i}").at(rack="r0").alloc(gpu=4).build() for i in range(4)]
    job = gang(podset("w", 16).requests(gpu=1).required("rack").build())
    result = place_gang(job, Snapshot.build(TopologyTree.build(topology("rack", "host"), nodes)))
    assert isinstance(result, Placement)
    usage = usage_of(result, job)
    assert len(usage) == 4 and len({id(v) for v in usage.values()}) == 1
    assert next(iter(usage.values())) == Resources({GPU: 4, "pods": 4})


def test_a_placement_of_another_gang_is_counted_pod_by_pod() -> None:
    nodes = [node(f"x{i}").at(rack="r0").alloc(gpu=4).build() for i in range(2)]
    job = gang(podset("w", 4).requests(gpu=1).build())
    result = place_gang(job, Snapshot.build(TopologyTree.build(topology("rack", "host"), nodes)))
    assert isinstance(result, Placement)
    other = gang(podset("w", 4).requests(gpu=2).build())  # same names, other requests
    assert usage_of(result, other) == usage_of(replace(result, pods=tuple(result.pods)), other)
