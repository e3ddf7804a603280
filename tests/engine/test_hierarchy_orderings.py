"""The hierarchical solver's orderings: tie-breaks among preferred-level sub-domains, the policy
it is given, and groups pinned by pods that already run."""

from __future__ import annotations

import numpy as np
import pytest

from builders import GPU, RACK, ZONE, node, running, topology
from toposched.engine import place_gang
from toposched.engine.core.greedy import greedy_pick
from toposched.engine.core.strategy import Strategy
from toposched.engine.policies.bestfit import BEST_FIT
from toposched.engine.policies.leastfree import LEAST_FREE
from toposched.engine.profiles import builtin
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

ONE_GPU = Resources({GPU: 1})
ZONE_RACK = topology("zone", "rack", "host", name="cluster-topology")


def pods(prefix: str, count: int, *, running_on: dict[int, str] | None = None) -> tuple[PodSpec, ...]:
    where = running_on or {}
    return tuple(PodSpec(f"{prefix}-{i}", i, ONE_GPU, node=where.get(i)) for i in range(count))


def racks(**free: int) -> list[Node]:
    """One node per rack (named after it, ``r1`` -> ``r1-n``) in zone z1 with ``free`` GPUs."""
    return [node(f"{r}-n").at(zone="z1", rack=r).alloc(gpu=g).build() for r, g in free.items()]


def solve(
    root: Group, nodes: list[Node], policy: Policy = Policy.BINPACK, used: list[RunningPod] | None = None
) -> Placement | Unschedulable:
    snap = Snapshot.build(TopologyTree.build(ZONE_RACK, nodes), used or [])
    return place_gang(Gang("job", root, topology="cluster-topology"), snap, policy=policy)


def nodes_in_order(result: Placement | Unschedulable) -> list[str | None]:
    assert isinstance(result, Placement), getattr(result, "message", result)
    return [p.node for p in sorted(result.pods, key=lambda p: p.index)]


def prefer_rack(count: int) -> Group:
    return Group("pg", preferred=RACK, min_member=count, pods=pods("p", count), topology="cluster-topology")


# -- 1. ties among preferred-level sub-domains ------------------------------------------------
#
#   z1 ── ra (3 free) ── rb (1) ── rc (1) ── rd (1)        no rack holds 5: the zone is used
@pytest.mark.parametrize(
    ("free", "count", "expected"),
    [
        # The emptiest rack first; the tied racks after it by id ascending (the seed's example).
        ({"ra": 3, "rb": 1, "rc": 1, "rd": 1}, 5, ["ra-n", "ra-n", "ra-n", "rb-n", "rc-n"]),
        # Every rack tied (all least loaded): KAI's later id first, as upstream's cases pin.
        ({"ra": 1, "rb": 1}, 2, ["rb-n", "ra-n"]),
        # A tie among the least loaded racks keeps KAI's order, the tie below it goes by id.
        ({"ra": 1, "rb": 1, "rc": 2, "rd": 2}, 5, ["rd-n", "rd-n", "rc-n", "rc-n", "ra-n"]),
    ],
    ids=["seed-tie-below-the-emptiest-by-id", "all-tied-later-id", "two-tie-runs"],
)
def test_preferred_rack_ties(free: dict[str, int], count: int, expected: list[str]) -> None:
    assert nodes_in_order(solve(prefer_rack(count), racks(**free))) == expected


# -- 2. the policy orders domains and nodes and is reported ---------------------------------------
#
#   z1 ── r1 (3 free) ── r2 (2 free) ── r3 (1 free)
#   z2 ── r4 (4 free)
TWO_ZONES = [
    node("r1-n").at(zone="z1", rack="r1").alloc(gpu=3).build(),
    node("r2-n").at(zone="z1", rack="r2").alloc(gpu=2).build(),
    node("r3-n").at(zone="z1", rack="r3").alloc(gpu=1).build(),
    node("r4-n").at(zone="z2", rack="r4").alloc(gpu=4).build(),
]


def zone_prefer_rack(count: int) -> Group:
    return Group(
        "pg",
        required=ZONE,
        preferred=RACK,
        min_member=count,
        pods=pods("p", count),
        topology="cluster-topology",
    )


@pytest.mark.parametrize(
    ("policy", "count", "expected"),
    [
        # KAI: z2 fits 4 in one rack, z1 only across racks; the preferred level wins.
        (Policy.BINPACK, 4, ["r4-n"] * 4),
        (Policy.BESTFIT, 4, ["r4-n"] * 4),
        # 3 pods: rack r1 is the tightest fit (r4 holds 4).
        (Policy.BESTFIT, 3, ["r1-n"] * 3),
        (Policy.LEASTFREE, 3, ["r1-n"] * 3),
        # 5 pods: only zone z1 (6 free) or nothing; BestFit takes the most free rack first and
        # the tightest rack for the rest, LeastFreeCapacity fills the small holes first.
        (Policy.BESTFIT, 5, ["r1-n", "r1-n", "r1-n", "r2-n", "r2-n"]),
        (Policy.MIXED, 5, ["r1-n", "r1-n", "r1-n", "r2-n", "r2-n"]),
        (Policy.BALANCED, 5, ["r1-n", "r1-n", "r1-n", "r2-n", "r2-n"]),
        (Policy.LEASTFREE, 5, ["r3-n", "r2-n", "r2-n", "r1-n", "r1-n"]),
    ],
    ids=lambda v: str(v),
)
def test_policy_orders_the_hierarchical_placement(policy: Policy, count: int, expected: list[str]) -> None:
    result = solve(zone_prefer_rack(count), TWO_ZONES, policy)
    assert isinstance(result, Placement) and result.policy is policy
    assert nodes_in_order(result) == expected


def test_unschedulable_reports_the_policy_too() -> None:
    result = solve(zone_prefer_rack(7), TWO_ZONES, Policy.LEASTFREE)
    assert isinstance(result, Unschedulable) and result.policy is Policy.LEASTFREE


def test_mixed_uses_least_free_for_unconstrained_groups() -> None:
    root = Group("pg", min_member=2, pods=pods("p", 2))
    assert nodes_in_order(solve(root, TWO_ZONES, Policy.MIXED)) == ["r3-n", "r2-n"]
    assert nodes_in_order(solve(root, TWO_ZONES, Policy.BESTFIT)) == ["r2-n", "r2-n"]


@pytest.mark.parametrize(
    ("policy", "constrained", "expected"),
    [
        (Policy.BINPACK, True, None),
        (Policy.BESTFIT, False, BEST_FIT),
        (Policy.BALANCED, False, BEST_FIT),
        (Policy.LEASTFREE, True, LEAST_FREE),
        (Policy.MIXED, True, BEST_FIT),
        (Policy.MIXED, False, LEAST_FREE),
    ],
    ids=lambda v: str(v),
)
def test_group_orderings_of_the_builtin_policies(policy: Policy, constrained: bool, expected: object) -> None:
    assert builtin().get(policy).for_group(constrained) is expected


@pytest.mark.parametrize(
    ("room", "count", "strategy", "whole", "expected"),
    [
        ([4, 1, 3], 5, BEST_FIT, False, [(0, 4), (1, 1)]),  # last swapped for the tightest
        ([4, 1, 3], 3, BEST_FIT, False, [(2, 3)]),
        ([4, 1, 3], 5, LEAST_FREE, False, [(1, 1), (2, 3), (0, 1)]),
        ([4, 1, 3], 3, LEAST_FREE, True, [(2, 3)]),  # a preferred level: first that holds all
        ([2, 2], 9, BEST_FIT, False, [(0, 2), (1, 2)]),  # not enough room: what there is
    ],
    ids=["bestfit-last", "bestfit-one", "leastfree", "leastfree-whole", "short"],
)
def test_greedy_pick(
    room: list[int], count: int, strategy: Strategy, whole: bool, expected: list[tuple[int, int]]
) -> None:
    ids = np.arange(len(room), dtype=np.int64)
    assert greedy_pick(np.asarray(room, dtype=np.int64), ids, count, strategy, whole=whole) == expected


# -- 3. running pods pin the groups above them ----------------------------------------------------
#
#   z1 ── r1: a1 a2    z2 ── r2: b1 b2 ── r3: b3 b4        one GPU per node, b1 runs worker-0
PINNED = [
    node(f"{h}").at(zone=z, rack=r).alloc(gpu=1).build()
    for h, z, r in [
        ("a1", "z1", "r1"),
        ("a2", "z1", "r1"),
        ("b1", "z2", "r2"),
        ("b2", "z2", "r2"),
        ("b3", "z2", "r3"),
        ("b4", "z2", "r3"),
    ]
]


def leader_workers() -> Group:
    return Group(
        "pg",
        required=ZONE,
        topology="cluster-topology",
        children=(
            Group("leader", min_member=1, pods=pods("leader", 1)),
            Group(
                "workers",
                required=RACK,
                min_member=2,
                pods=pods("worker", 2, running_on={0: "b1"}),
                topology="cluster-topology",
            ),
        ),
    )


def test_running_pod_pins_its_groups_and_they_are_solved_first() -> None:
    # KAI's member order alone puts the leader first, on b2 (name order), and the workers then
    # find no room in r2: the pinned workers go first instead.
    result = solve(leader_workers(), PINNED, Policy.BINPACK)
    assert isinstance(result, Placement), getattr(result, "message", result)
    where = {p.pod: p.node for p in result.pods}
    assert where["worker-0"] == "b1" and where["worker-1"] == "b2"  # the running pod's rack
    assert where["leader-0"] in {"b3", "b4"}  # inside the zone the running pod pins


def test_full_pinned_rack_names_that_rack() -> None:
    busy = [running("other", "b2", gpu=1)]
    result = solve(leader_workers(), PINNED, Policy.BINPACK, busy)
    assert isinstance(result, Unschedulable) and not result.placed
    assert result.group == "workers" and result.best_domain == ("z2", "r2")
    assert result.fit == 0 and result.needed == 1
    assert "already run in" in result.message and "z2.r2" in result.message
