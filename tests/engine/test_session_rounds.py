"""A placement session's rounds: the exact searches of one round share its time, a search goes on
where it stopped in the next round, and a refusal is kept until the snapshots change.

The gang: a block holding three groups that each require a rack: two of seven one-GPU pods, and
one of three 3-GPU and three 2-GPU pods, which no rack of 4-GPU nodes holds (three nodes keep one
GPU each after the 3-GPU pods; the 2-GPU pods need the fourth node and one more). No capacity
count sees it, so the exact search tries every rack for the first two groups, and their splits,
before it can say so::

    b0 ── r0 ── h0 h1 h2 h3   (4 GPUs each)
       ├─ r1 ── ...
       ├─ r2 ── ...
       └─ r3 ── ...
"""

from __future__ import annotations

from collections.abc import Callable

from builders import BLOCK, GPU, RACK, node, topology
from toposched.engine import PlacementOptions, PlacementSession, open_session
from toposched.engine.core.budget import EXPIRY_EVERY, STEP_SECONDS
from toposched.model import Cluster, Gang, Group, PodSpec, Policy, Resources, Unschedulable
from toposched.snapshot import Snapshot

LEVELS = topology("block", "rack", "host")
STEPS = 3_000  # the gang's whole search
SHARE = 600  # steps' worth of one round (the session's work clock)


def cluster() -> Cluster:
    nodes = [
        node(f"r{r}h{h}").at(block="b0", rack=f"r{r}").alloc(gpu=4).build()
        for r in range(4)
        for h in range(4)
    ]
    return Cluster.create(nodes, [], [LEVELS])


def pods(prefix: str, count: int, gpu: int, first: int = 0) -> tuple[PodSpec, ...]:
    return tuple(PodSpec(f"{prefix}-{i}", first + i, Resources({GPU: gpu})) for i in range(count))


def hard_gang(name: str = "hard") -> Gang:
    groups = [Group(f"easy{k}", required=RACK, pods=pods(f"e{k}", 7, 1)) for k in range(2)]
    groups.append(Group("puzzle", required=RACK, pods=pods("three", 3, 3) + pods("two", 3, 2, first=3)))
    return Gang(name, Group("root", required=BLOCK, children=tuple(groups)), default_policy=Policy.BINPACK)


def test_a_search_goes_on_round_after_round_within_each_share_and_its_own_budget() -> None:
    placing = open_session(PlacementOptions(steps=STEPS, round_seconds=SHARE * STEP_SECONDS))
    gang, on = hard_gang(), cluster()
    main, snapshots = placing.snapshots(gang, on, LEVELS)
    per_round: list[int] = []
    result: Unschedulable | None = None
    for _ in range(20):
        placing.begin_round()
        before = placing.meter.steps
        found = placing.place(gang, main, snapshots or None, key="hard")
        assert isinstance(found, Unschedulable)
        per_round.append(placing.meter.steps - before)
        result = found
        if not found.searching:
            break
    assert result is not None and result.budget_exhausted and not result.searching
    assert len(per_round) >= STEPS // (SHARE + EXPIRY_EVERY)  # spread over rounds
    assert max(per_round) <= SHARE + EXPIRY_EVERY  # the share, asked every few hundred steps
    assert sum(per_round) == STEPS + 1  # one search, resumed: no step searched twice
    one_go = open_session(PlacementOptions(steps=STEPS))
    alone = one_go.place(gang, *one_go.snapshots(gang, on, LEVELS))
    assert isinstance(alone, Unschedulable) and alone.message == result.message
    assert one_go.meter.steps == STEPS + 1


def searching_rounds(
    placing: PlacementSession, gang: Gang, main: Snapshot, between: Callable[[int], None]
) -> list[int]:
    """Rounds of ``gang``'s search until it ends (at most 20), ``between(round)`` run after each:
    the steps each round searched."""
    per_round: list[int] = []
    for k in range(20):
        placing.begin_round()
        before = placing.meter.steps
        found = placing.place(gang, main, key="hard")
        assert isinstance(found, Unschedulable)
        per_round.append(placing.meter.steps - before)
        if not found.searching:
            break
        between(k)
    return per_round


def test_a_paused_search_goes_on_when_others_are_admitted_on_nodes_its_pods_may_not_use() -> None:
    """Other gangs admitted between rounds on a tainted rack the gang's pods do not tolerate
    change the snapshot, but nothing the search reads: it goes on where it stopped."""
    tainted = [
        node(f"t{h}").at(block="b0", rack="r9").alloc(gpu=4).taint("dedicated", "other").build()
        for h in range(4)
    ]
    on = Cluster.create([*cluster().nodes, *tainted], [], [LEVELS])
    placing = open_session(PlacementOptions(steps=STEPS, round_seconds=SHARE * STEP_SECONDS))
    gang = hard_gang()
    main, _ = placing.snapshots(gang, on, LEVELS)

    def admit_elsewhere(k: int) -> None:
        main.add_usage(f"other{k}", {f"t{k % 4}": Resources({GPU: 1, "pods": 1})})

    per_round = searching_rounds(placing, gang, main, admit_elsewhere)
    assert len(per_round) > 2 and main.version >= len(per_round) - 1  # the snapshot did change
    assert sum(per_round) == STEPS + 1  # one search, resumed: no step searched twice


def test_a_paused_search_starts_again_when_a_node_its_pods_may_use_changes() -> None:
    placing = open_session(PlacementOptions(steps=STEPS, round_seconds=SHARE * STEP_SECONDS))
    gang = hard_gang()
    main, _ = placing.snapshots(gang, cluster(), LEVELS)

    def admit_on_its_rack(k: int) -> None:
        main.add_usage(f"other{k}", {"r0h0": Resources({"pods": 1})})

    per_round = searching_rounds(placing, gang, main, admit_on_its_rack)
    assert len(per_round) == 20 and all(steps >= SHARE for steps in per_round)  # never gets further


def test_a_refusal_is_kept_until_the_snapshots_change() -> None:
    placing = open_session(
        PlacementOptions(steps=STEPS, round_seconds=2 * STEPS * STEP_SECONDS)
    )  # one round decides
    gang = hard_gang()
    main, _ = placing.snapshots(gang, cluster(), LEVELS)
    placing.begin_round()
    refused = placing.place(gang, main, key="hard")
    assert isinstance(refused, Unschedulable) and refused.budget_exhausted
    searched = placing.meter.steps
    for _ in range(3):
        placing.begin_round()
        assert placing.place(gang, main, key="hard") is refused  # nothing changed: not searched
    assert placing.meter.steps == searched
    main.add_usage("other", {"r0h0": Resources({GPU: 1, "pods": 1})})  # the cluster changed
    placing.begin_round()
    again = placing.place(gang, main, key="hard")
    assert isinstance(again, Unschedulable) and placing.meter.steps > searched


def test_the_share_of_a_round_is_divided_among_the_gangs_that_search() -> None:
    placing = open_session(PlacementOptions(steps=100 * STEPS, round_seconds=SHARE * STEP_SECONDS))
    gangs = {key: hard_gang(key) for key in ("a", "b")}
    main, _ = placing.snapshots(gangs["a"], cluster(), LEVELS)
    took: list[dict[str, int]] = []
    for _ in range(3):
        placing.begin_round()
        steps: dict[str, int] = {}
        for key, gang in gangs.items():
            before = placing.meter.steps
            assert placing.place(gang, main, key=key).searching
            steps[key] = placing.meter.steps - before
        took.append(steps)
    # The first round expects one searching gang: the first takes the share, the second waits.
    assert took[0]["a"] >= SHARE and took[0]["b"] <= 1
    for steps in took[1:]:  # then each gets half of it, and the round no more than all of it
        assert all(0 < n <= SHARE // 2 + EXPIRY_EVERY for n in steps.values())
        assert sum(steps.values()) <= SHARE + 2 * EXPIRY_EVERY
