"""Free capacity, per-shape pod capacity, usage bookkeeping and exclusion statistics."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from builders import GPU, node, running, topology
from toposched.model import Resources, Toleration, TolerationOperator
from toposched.snapshot import PodShape, Snapshot, exclusion_stats
from toposched.topology import TopologyTree

# Topology host only.
#
#   h1 (4 cpu, 2 gpu)   h2 (4 cpu, 8 gpu, tainted gpu=yes)   h3 (2 cpu, zone=z1)
HOSTS = topology("host")


@pytest.fixture
def snapshot() -> Snapshot:
    tree = TopologyTree.build(
        HOSTS,
        [
            node("h1").at().alloc(cpu=4, gpu=2).build(),
            node("h2").at().alloc(cpu=4, gpu=8).taint("gpu", "yes").build(),
            node("h3").at().labels(zone="z1").alloc(cpu=2, pods=3).build(),
        ],
    )
    return Snapshot.build(
        tree, [running("p1", "h1", cpu="1500m"), running("p2", "h3"), running("gone", "nowhere", cpu=9)]
    )


def shape(**requests: str | int) -> PodShape:
    return PodShape(Resources.parse({GPU if k == "gpu" else k: v for k, v in requests.items()}))


def test_free_is_allocatable_minus_running_pods_and_their_pod_slots(snapshot: Snapshot) -> None:
    assert snapshot.free_of("h1") == Resources({"cpu": 2500, GPU: 2, "pods": 109})
    assert snapshot.free_of("h3") == Resources({"cpu": 2000, "pods": 2})
    assert snapshot.free_of("h2")["pods"] == 110  # the pod on an unknown node is ignored


@pytest.mark.parametrize(
    ("requests", "expected"),
    [
        pytest.param({"cpu": 1}, [2, 0, 2], id="cpu-limited; tainted node excluded"),
        pytest.param({"cpu": "500m"}, [5, 0, 2], id="pod slots limit h3"),
        pytest.param({"gpu": 1}, [2, 0, 0], id="resource missing on h3"),
        pytest.param({}, [109, 0, 2], id="only the pod slot"),
        pytest.param({"example.com/unknown": 1}, [0, 0, 0], id="resource no node has"),
    ],
)
def test_capacity_per_shape(snapshot: Snapshot, requests: dict[str, int], expected: list[int]) -> None:
    assert snapshot.capacity(shape(**requests)).tolist() == expected


def test_tolerations_and_selectors(snapshot: Snapshot) -> None:
    tolerant = PodShape(Resources.parse({"cpu": 1}), (Toleration("gpu", TolerationOperator.EXISTS),))
    assert snapshot.capacity(tolerant).tolist() == [2, 4, 2]
    picky = PodShape(Resources.parse({"cpu": 1}), (), (("zone", "z1"),))
    assert snapshot.capacity(picky).tolist() == [0, 0, 2]


def test_clone_is_independent(snapshot: Snapshot) -> None:
    copy = snapshot.clone()
    copy.add_usage("job", {"h1": Resources({"cpu": 1000, "pods": 1})})
    assert snapshot.free_of("h1")["cpu"] == 2500
    assert copy.free_of("h1")["cpu"] == 1500


def test_usage_is_idempotent_per_key(snapshot: Snapshot) -> None:
    before = snapshot.free.copy()
    usage = {
        "h1": Resources({"cpu": 1000, "pods": 1}),
        "h2": Resources({GPU: 2, "pods": 2}),
        "elsewhere": Resources({"cpu": 1}),
    }
    snapshot.add_usage("job", usage)
    snapshot.add_usage("job", usage)
    assert snapshot.free_of("h1")["cpu"] == 1500
    assert snapshot.free_of("h2")[GPU] == 6
    assert snapshot.usage_keys() == ("job",)
    snapshot.remove_usage("job")
    snapshot.remove_usage("job")
    assert np.array_equal(snapshot.free, before)


def test_usage_of_a_new_resource_adds_a_column(snapshot: Snapshot) -> None:
    snapshot.add_usage("job", {"h1": Resources({"example.com/fpga": 1})})
    assert snapshot.free_of("h1")["example.com/fpga"] == -1
    snapshot.remove_usage("job")
    assert snapshot.free_of("h1")["example.com/fpga"] == 0


def test_exclusions_follow_taint_then_selector_then_resource(snapshot: Snapshot) -> None:
    picky = PodShape(Resources.parse({"cpu": 3}), (), (("zone", "z1"),))
    stats = exclusion_stats(snapshot.tree, snapshot.free, snapshot.columns, picky, snapshot.capacity(picky))
    # h1: selector misses; h2: taint first; h3: cpu (2 < 3) limits before pods.
    assert stats.total == 3
    assert stats.counts() == {"nodeSelector": 1, 'taint "gpu=yes:NoSchedule"': 1, 'resource "cpu"': 1}
    assert stats.text() == 'nodeSelector: 1, resource "cpu": 1, taint "gpu=yes:NoSchedule": 1'


def test_limiting_resource_ties_go_alphabetically() -> None:
    tree = TopologyTree.build(HOSTS, [node("h").at().alloc(cpu=0, gpu=0, pods=0).build()])
    snap = Snapshot.build(tree)
    wanted = shape(cpu=1, gpu=1)
    stats = exclusion_stats(tree, snap.free, snap.columns, wanted, snap.capacity(wanted))
    assert stats.resources == {"cpu": 1}


# Topology block / rack: leaves are racks of several nodes, counted as one leaf each.
#
#   b1 ── r1: n1 (1 cpu), n2 (1 cpu)
#      └─ r2: n3 (0 cpu)
def test_leaf_capacity_and_exclusions_for_rack_leaves() -> None:
    tree = TopologyTree.build(
        topology("block", "rack"),
        [
            node(n).at(block="b1", rack=r).alloc(cpu=c).build()
            for n, r, c in [("n1", "r1", 1), ("n2", "r1", 1), ("n3", "r2", 0)]
        ],
    )
    snap = Snapshot.build(tree)
    two = shape(cpu=2)
    assert snap.capacity(two).tolist() == [0, 0, 0]  # no single node holds a 2-cpu pod
    stats = exclusion_stats(tree, snap.free, snap.columns, two, snap.capacity(two))
    assert stats.total == 2
    assert stats.resources == {"cpu": 2}


def test_level_capacity_sums_node_capacity_per_domain() -> None:
    tree = TopologyTree.build(
        topology("block", "rack", "host"),
        [
            node("a").at(block="b1", rack="r1").alloc(cpu=2).build(),
            node("b").at(block="b1", rack="r2").alloc(cpu=3).build(),
            node("c").at(block="b2", rack="r1").alloc(cpu=1).build(),
        ],
    )
    sums = Snapshot.build(tree).level_capacity(shape(cpu=1))
    assert [s.tolist() for s in sums] == [[5, 1], [2, 3, 1], [2, 3, 1]]


@settings(max_examples=100, deadline=None)
@given(st.data())
def test_changed_rows_hold_every_row_that_changed(data: st.DataObject) -> None:
    """``changed_rows(v)``: every row whose free amounts differ from version v's, or None when
    a column was added since."""
    names = [f"h{i}" for i in range(5)]
    snap = Snapshot.build(TopologyTree.build(HOSTS, [node(n).at().alloc(cpu=4).build() for n in names]))
    seen: dict[int, np.ndarray] = {snap.version: snap.free.copy()}
    for _ in range(data.draw(st.integers(1, 12))):
        key = f"w{data.draw(st.integers(0, 2))}"
        if data.draw(st.booleans()):
            snap.remove_usage(key)
        else:
            resource = data.draw(st.sampled_from(["cpu", "pods", "example.com/fpga"]))
            chosen = data.draw(st.lists(st.sampled_from([*names, "elsewhere"]), max_size=4))
            snap.add_usage(key, {n: Resources({resource: data.draw(st.integers(0, 3))}) for n in chosen})
        seen[snap.version] = snap.free.copy()
    for version, free in seen.items():  # at most 24 changes: all of them kept
        rows = snap.changed_rows(version)
        if free.shape != snap.free.shape:  # a column was added since (columns are only added)
            assert rows is None
            continue
        assert rows is not None
        differ = np.flatnonzero((free != snap.free).any(axis=1))
        assert set(differ.tolist()) <= set(rows.tolist())


def test_changed_rows_of_a_version_older_than_the_changes_kept_are_not_known(snapshot: Snapshot) -> None:
    for k in range(70):
        snapshot.add_usage("w", {"h1": Resources({"cpu": k})})
    assert snapshot.changed_rows(0) is None
    assert snapshot.changed_rows(snapshot.version - 1) is not None
