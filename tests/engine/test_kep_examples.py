"""The worked examples of the Kueue TAS KEP (seed 001), section by section."""

from __future__ import annotations

import pytest

from builders import gang, hosts, node, podset, topology
from toposched.engine import place_gang
from toposched.model import Gang, Node, Placement, Policy
from toposched.snapshot import Snapshot
from toposched.topology import TopologyTree

# One block, one rack, hosts x1..x4 with room for 3, 3, 2 and 1 one-GPU pods.
#
#   b1 ── r1 ── x1 (3)  x2 (3)  x3 (2)  x4 (1)
RACK_3321 = hosts([3, 3, 2, 1], block="b1", rack="r1")


def counts(
    nodes: list[Node], job: Gang, policy: Policy, levels: tuple[str, ...] = ("block", "rack", "host")
) -> dict[str, int]:
    snapshot = Snapshot.build(TopologyTree.build(topology(*levels), nodes))
    result = place_gang(job, snapshot, policy=policy)
    assert isinstance(result, Placement), getattr(result, "message", result)
    ta = result.assignments["main"]
    return {d.values[-1]: d.count for d in ta.domains}


def test_computing_the_assignment_bestfit() -> None:
    # "BestFit ... select the first two nodes, each with 3 available pods ... With 1 pod remaining
    # ... selects the node that can accommodate exactly 1 pod."
    job = gang(podset("main", 7).requests(gpu=1).required("rack").build())
    assert counts(RACK_3321, job, Policy.BESTFIT) == {"x1": 3, "x2": 3, "x4": 1}


@pytest.mark.parametrize(
    ("policy", "request_level"),
    [
        pytest.param(Policy.LEASTFREE, "rack", id="leastfree-required"),
        pytest.param(Policy.MIXED, None, id="mixed-unconstrained"),
    ],
)
def test_computing_the_assignment_least_free_capacity(policy: Policy, request_level: str | None) -> None:
    # "selects the nodes with 1, 2, 3, and 3 available pods, reserving capacity for only 1 pod on
    # the last node"
    builder = podset("main", 7).requests(gpu=1)
    job = gang((builder.required(request_level) if request_level else builder).build())
    assert counts(RACK_3321, job, policy) == {"x4": 1, "x3": 2, "x1": 3, "x2": 1}


# One rack, hosts with room for 6, 5, 4, 3 and 2 pods; slices of 2 pods on the host level.
#
#   b1 ── r1 ── h6 (6)  h5 (5)  h4 (4)  h3 (3)  h2 (2)
RACK_65432 = [node(f"h{c}").at(block="b1", rack="r1").alloc(gpu=c).build() for c in (6, 5, 4, 3, 2)]


def test_two_level_bestfit_row() -> None:
    # | BestFit | 12 | 6 | . | 4 | . | 2 |
    job = gang(podset("main", 12).requests(gpu=1).required("rack").slices(("host", 2)).build())
    assert counts(RACK_65432, job, Policy.BESTFIT) == {"h6": 6, "h4": 4, "h2": 2}


def test_two_level_least_free_capacity_row() -> None:
    # | LeastFreeCapacity | 10 | . | 2 | 4 | 2 | 2 |  (a slice-only request: LFC under Mixed)
    job = gang(podset("main", 10).requests(gpu=1).slices(("host", 2)).build())
    assert counts(RACK_65432, job, Policy.MIXED) == {"h5": 2, "h4": 4, "h3": 2, "h2": 2}


def _racks(block: str, racks: list[list[int]], start: int) -> list[Node]:
    out: list[Node] = []
    for r, capacities in enumerate(racks, start=1):
        for cap in capacities:
            start += 1
            out.append(
                node(f"x{start}").at(block=block, rack=f"{block}-r{r}").alloc(gpu=cap, pods=64).build()
            )
    return out


# Capacities per rack (a block holds the listed racks); preferred = rack, BalancedPlacement.
BALANCED_ROWS = [
    pytest.param([[[15], [15]]], 25, 1, [[[13], [12]]], id="two-racks-13-12"),
    pytest.param([[[15, 13, 10]]], 23, 1, [[[12, 11, 0]]], id="one-rack-12-11"),
    pytest.param([[[20, 10], [15, 15]]], 22, 1, [[[0, 0], [11, 11]]], id="higher-threshold-rack"),
    pytest.param([[[20, 10], [15, 15]]], 20, 1, [[[20, 0], [0, 0]]], id="single-host-fits"),
    pytest.param([[[10, 5], [5, 5, 5]]], 15, 1, [[[0, 0], [5, 5, 5]]], id="more-balanced-rack"),
    pytest.param([[[15], [15]], [[15, 15]]], 25, 1, [[[0], [0]], [[13, 12]]], id="block-with-one-rack"),
    pytest.param([[[15], [15], [15, 15]]], 25, 5, [[[0], [0], [15, 10]]], id="host-slices-of-5"),
]


@pytest.mark.parametrize(("blocks", "count", "slice_size", "expected"), BALANCED_ROWS)
def test_balanced_placement_table(
    blocks: list[list[list[int]]], count: int, slice_size: int, expected: list[list[list[int]]]
) -> None:
    nodes: list[Node] = []
    for b, racks in enumerate(blocks, start=1):
        nodes += _racks(f"b{b}", racks, len(nodes))
    builder = podset("main", count).requests(gpu=1).preferred("rack")
    if slice_size > 1:
        builder = builder.slices(("host", slice_size))
    got = counts(nodes, gang(builder.build()), Policy.BALANCED)
    flat = [c for racks in expected for rack in racks for c in rack]
    assert [got.get(f"x{i}", 0) for i in range(1, len(flat) + 1)] == flat


# Block / rack / host: one block, 2 racks x 4 hosts, 8 pods per host; layers block=32, rack=16.
#
#   b1 ── r1 ── x1..x4 (8 each)
#      └─ r2 ── x5..x8 (8 each)
def test_multi_level_example() -> None:
    nodes = [
        node(f"x{i}").at(block="b1", rack=f"r{(i - 1) // 4 + 1}").alloc(gpu=8).build() for i in range(1, 9)
    ]
    job = gang(
        podset("main", 64).requests(gpu=1).required("block").slices(("block", 32), ("rack", 16)).build()
    )
    assert counts(nodes, job, Policy.BESTFIT) == {f"x{i}": 8 for i in range(1, 9)}
