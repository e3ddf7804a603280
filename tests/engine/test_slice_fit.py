"""``slice_fit``: what a domain holds of a sliced group when all its layers are honoured at once
(issue 27, item 7). Counted per layer as one arrangement takes them, so no count exceeds what is
asked, and the groups left short name where the missing slices must go."""

from __future__ import annotations

import pytest

from conformance import kueue_case as kc
from conformance.loader import Case, discover
from toposched.engine.session import open_session
from toposched.engine.slice_fit import SliceFit, slice_fit
from toposched.model import LayerFit, Node, Resources, ShortSlices, SliceLayer, Topology
from toposched.snapshot import PodShape

BLOCK, RACK, HOST = "block", "rack", "kubernetes.io/hostname"


def _fit(
    nodes: list[Node], levels: list[str], layers: list[SliceLayer], count: int, request: Resources
) -> SliceFit:
    topology = Topology.create("t", levels)
    snapshot = open_session().snapshot(topology, tuple(nodes), ())
    shape = PodShape(request, (), ())
    found = slice_fit(snapshot.tree, snapshot.level_capacity(shape), layers, count, 0, 0)
    assert found is not None
    return found


def test_free_racks_spread_over_blocks_hold_one_block_slice_not_two() -> None:
    """8 pods in one zone: 2 block slices of 4, each 2 rack slices of 2 (one pod per node).

        z ─┬─ b1 ─┬─ r1: 2 free nodes   (a rack slice)
           │      └─ r2: 2 free nodes   (a rack slice)   → b1 holds a block slice
           └─ b2 ─┬─ r3: 2 free nodes   (a rack slice)
                  └─ r4: 1 free node                      → b2 holds 1 of its 2 rack slices

    Three rack slices fit in the zone and Kueue's per-layer count says so; one arrangement of the
    whole group takes 3 of 4, and b2 is where the missing one goes."""
    racks = {"b1": {"r1": 2, "r2": 2}, "b2": {"r3": 2, "r4": 1}}
    nodes = [
        Node.create(
            f"{rack}-n{i}",
            {"zone": "z", BLOCK: block, RACK: rack, HOST: f"{rack}-n{i}"},
            Resources.parse({"cpu": "1", "pods": "10"}),
        )
        for block, members in racks.items()
        for rack, free in members.items()
        for i in range(free)
    ]
    found = _fit(
        nodes,
        ["zone", BLOCK, RACK, HOST],
        [SliceLayer(BLOCK, 4), SliceLayer(RACK, 2)],
        8,
        Resources.parse({"cpu": "1"}),
    )
    assert found.layers == (LayerFit(BLOCK, 1, 2), LayerFit(RACK, 3, 4))
    assert found.pods == 6
    assert found.short == (ShortSlices(("z", "b2"), 1, 2),)


MULTILAYER = {
    # case id: per layer (fit, needed) of one arrangement in the case's block / datacenter
    "kueue-multilayer-host-rounding-breaks-rack": [(0, 1), (2, 3)],
    "kueue-multilayer-small-host-breaks-rack": [(1, 2), (3, 4)],
    "kueue-multilayer-three-layers-cascade": [(1, 2), (3, 4), (6, 8)],
    # Kueue counts 6/6 host pairs, but they sit two to a rack: one arrangement takes 4 of 6.
    "kueue-multilayer-host-slices-but-no-rack-slices": [(0, 2), (4, 6)],
}


@pytest.mark.parametrize(
    "case", [c for c in discover("kueue", {"placement"}) if c.id in MULTILAYER], ids=lambda c: c.id
)
def test_the_refused_multilayer_cases_count_what_one_arrangement_takes(case: Case) -> None:
    data = case.data
    nodes, pods = kc.nodes_of(data)
    topology = kc.topology_of(data)
    (leaf,) = kc.gang_of(data).leaves()
    pod = leaf.pods[0]
    snapshot = open_session().snapshot(topology, tuple(nodes), tuple(pods))
    level = snapshot.tree.level_index(str(leaf.required))
    assert level is not None
    found = slice_fit(
        snapshot.tree,
        snapshot.level_capacity(PodShape(pod.requests, (), ())),
        leaf.slices,
        len(leaf.pods),
        level,
        0,
    )
    assert found is not None
    assert [(x.fit, x.needed) for x in found.layers] == MULTILAYER[data["id"]]
    assert all(x.fit <= x.needed for x in found.layers)
    assert found.short, "a refused group names the groups left short"


def test_an_invalid_layer_gives_no_count() -> None:
    nodes = [Node.create("n", {BLOCK: "b", HOST: "n"}, Resources.parse({"cpu": "4", "pods": "10"}))]
    topology = Topology.create("t", [BLOCK, HOST])
    snapshot = open_session().snapshot(topology, tuple(nodes), ())
    capacity = snapshot.level_capacity(PodShape(Resources.parse({"cpu": "1"}), (), ()))
    assert slice_fit(snapshot.tree, capacity, [SliceLayer(HOST, 3)], 4, 0, 0) is None  # 3 does not divide 4
    assert slice_fit(snapshot.tree, capacity, [SliceLayer("nowhere", 2)], 4, 0, 0) is None
