"""Capacity bounds prove a gang infeasible before the exact search tries splits: slices count
whole per domain (a domain holds its free pods divided by the slice size, rounded down), and
splits of pods of one shape that all leave the same room are not tried one by one.

One block of six racks of four 4-GPU nodes; r0 is free, every other rack has 9 GPUs free::

    b0 ── r0 ── 16 free      (two 6-pod slices)
       ├─ r1 ── 2+2+2+3 free (one 6-pod slice)
       ├─ ...
       └─ r5 ── 2+2+2+3 free (one 6-pod slice)
"""

from __future__ import annotations

from builders import BLOCK, GPU, RACK, ZONE, node, running, topology
from toposched.engine import SearchBudget, place
from toposched.engine.core.members import build
from toposched.engine.core.space import NodeSpace
from toposched.engine.exact.backtrack import ExactSearch
from toposched.model import (
    Cluster,
    Gang,
    Group,
    Placement,
    PodSpec,
    Policy,
    Resources,
    Search,
    SliceLayer,
    Unschedulable,
)
from toposched.snapshot import Snapshot
from toposched.topology import TopologyTree

LEVELS = topology("block", "rack", "host")


def cluster() -> Cluster:
    nodes = [
        node(f"r{r}h{h}").at(block="b0", rack=f"r{r}").alloc(gpu=4).build()
        for r in range(6)
        for h in range(4)
    ]
    used = [running(f"u{r}{h}", f"r{r}h{h}", gpu=2 if h < 3 else 1) for r in range(1, 6) for h in range(4)]
    return Cluster.create(nodes, used, [LEVELS])


def sliced(pods: int, size: int = 6) -> Gang:
    specs = tuple(PodSpec(f"p{i}", i, Resources({GPU: 1})) for i in range(pods))
    leaf = Group("main", required=BLOCK, slices=(SliceLayer(RACK, size),), pods=specs)
    return Gang("sliced", Group("workload", children=(leaf,)))


def test_more_slices_than_the_domains_hold_is_refused_at_once() -> None:
    """48 one-GPU pods fit the block's 61 free GPUs, but eight 6-pod slices do not fit its racks
    (two in r0, one in each other): the search says so in a few steps instead of trying splits
    until its budget runs out (it did: 20,000 steps)."""
    result = place(
        sliced(48),
        cluster(),
        topology=LEVELS,
        policy=Policy.MIXED,
        search=Search.COMPLETE,
        budget=SearchBudget(20_000),
    )
    assert isinstance(result, Unschedulable) and not result.budget_exhausted
    assert result.note.startswith("complete search found no placement either (")
    assert int(result.note.split("(")[1].split()[0]) <= 10


def test_as_many_slices_as_the_domains_hold_are_placed() -> None:
    result = place(sliced(42), cluster(), topology=LEVELS, policy=Policy.MIXED, search=Search.COMPLETE)
    assert isinstance(result, Placement)
    per_rack: dict[str, int] = {}
    for pod in result.pods:
        rack = str(pod.node)[:2]
        per_rack[rack] = per_rack.get(rack, 0) + 1
    assert sorted(per_rack.values()) == [6, 6, 6, 6, 6, 12]


def test_splits_are_tried_one_by_one_when_they_leave_the_slices_different_room() -> None:
    """A group of six pods required in a block, beside two five-pod groups that each require a
    rack: only three pods in each rack leave room for one five-pod group in each. Its
    first split (four, then two, in rack r0) leaves room for one group only, and the next splits
    differ; taking the first as standing for all made the search miss the placement::

        b0 ── r0 ── h0 h1 (4 GPUs each)
           └─ r1 ── h2 h3
    """
    nodes = [node(f"h{h}").at(block="b0", rack=f"r{h // 2}").alloc(gpu=4).build() for h in range(4)]
    space = NodeSpace(Snapshot.build(TopologyTree.build(LEVELS, nodes), []))

    def pods(prefix: str, count: int, first: int) -> tuple[PodSpec, ...]:
        return tuple(PodSpec(f"{prefix}{i}", first + i, Resources({GPU: 1})) for i in range(count))

    spread = Group("spread", required=BLOCK, pods=pods("s", 6, 0))  # placed first: the most pods
    racked = [Group(f"racked{k}", required=RACK, pods=pods(f"r{k}-", 5, 6 + 5 * k)) for k in range(2)]
    root = Group("root", required=BLOCK, children=(spread, *racked))
    outcome = ExactSearch(space, build(root, None), SearchBudget(10_000)).run()
    assert outcome.found and not outcome.exhausted
    racks = [nodes[row].labels[RACK] for row in outcome.where.values()]
    assert sorted(racks.count(rack) for rack in ("r0", "r1")) == [8, 8]


ZONED = topology("zone", "block", "rack", "host")


def spread_racks() -> Cluster:
    """One zone, two blocks; a rack is free (two 1-GPU nodes) or has one free node::

    z0 ─┬─ b0 ── r0 free, r1 free, r2 free        (three rack slices of 2)
        └─ b1 ── r3 free, r4 one node, r5 one node (one rack slice)
    """
    free = {"b0": {"r0": 2, "r1": 2, "r2": 2}, "b1": {"r3": 2, "r4": 1, "r5": 1}}
    nodes = [
        node(f"{r}h{h}").at(zone="z0", block=b, rack=r).alloc(gpu=1).build()
        for b, racks in free.items()
        for r, count in racks.items()
        for h in range(count)
    ]
    return Cluster.create(nodes, [], [ZONED])


def layered(pods: int, block: int) -> Gang:
    specs = tuple(PodSpec(f"p{i}", i, Resources({GPU: 1})) for i in range(pods))
    layers = (SliceLayer(BLOCK, block), SliceLayer(RACK, 2))
    leaf = Group("main", required=ZONE, slices=layers, pods=specs)
    return Gang("layered", Group("workload", children=(leaf,)))


def test_blocks_hold_only_the_block_slices_their_racks_hold_whole() -> None:
    """Two block slices of 4 pods, each two rack slices of 2: the zone has 10 free GPUs and four
    rack slices, but b1 holds one rack slice, not two. Counting a block's free pods let the
    search try every split of b0 and b1 until its budget ran out (the 4,608-node multilayer
    example of issue 27 took 2 s of CPU this way); counting its racks' whole slices refuses it
    at once."""
    result = place(
        layered(8, 4),
        spread_racks(),
        topology=ZONED,
        policy=Policy.MIXED,
        search=Search.COMPLETE,
        budget=SearchBudget(200),
    )
    assert isinstance(result, Unschedulable) and not result.budget_exhausted
    assert result.note.startswith("complete search found no placement either (")
    assert int(result.note.split("(")[1].split()[0]) <= 10


def test_block_slices_that_the_racks_hold_are_placed() -> None:
    """Three block slices of 2 pods (one rack slice each) fit: two in b0, one in b1."""
    result = place(layered(6, 2), spread_racks(), topology=ZONED, policy=Policy.MIXED, search=Search.COMPLETE)
    assert isinstance(result, Placement)
    racks = sorted({str(p.node)[:2] for p in result.pods})
    assert len(racks) == 3
