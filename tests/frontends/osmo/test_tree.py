"""The tree algorithm (steps 1-7) on the design's examples and the seed's decisions: shared
levels on the PodGroup, subgroups below the first branch, catch-all, padding, leaf minMember.

Pool used throughout, coarsest first::

    zone ── spine ── rack ── gpu-clique
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from toposched.frontends.osmo import Requirement, SubGroupSpec, TopologyTree, build_tree

LABELS = {
    "zone": "topology.kubernetes.io/zone",
    "spine": "topology.kubernetes.io/spine",
    "rack": "topology.kubernetes.io/rack",
    "gpu-clique": "nvidia.com/gpu-clique",
}
ORDER = list(LABELS)
ZONE, SPINE, RACK, CLIQUE = LABELS.values()


def req(key: str, group: str = "default", required: bool = True) -> Requirement:
    return Requirement(key, LABELS[key], ORDER.index(key), group, required)


def tasks(spec: Sequence[tuple[str, Sequence[Requirement]]]) -> list[tuple[str, tuple[Requirement, ...]]]:
    return [(name, tuple(sorted(reqs, key=lambda r: r.order))) for name, reqs in spec]


def shards(model: str, reqs: Sequence[Requirement], n: int = 4) -> list[tuple[str, Sequence[Requirement]]]:
    return [(f"{model}-shard{i}", reqs) for i in range(1, n + 1)]


M1 = "model1"
M2 = "model2"

CASES = [
    pytest.param(
        shards(M1, [req("gpu-clique")]),
        TopologyTree(required=CLIQUE),
        id="use-case-1-single-rack-constraint-on-podgroup",
    ),
    pytest.param(
        shards(M1, [req("gpu-clique", "model-1-group")]) + shards(M2, [req("gpu-clique", "model-2-group")]),
        TopologyTree(
            subgroups=(
                SubGroupSpec("model-1-group", CLIQUE, True, None, 4),
                SubGroupSpec("model-2-group", CLIQUE, True, None, 4),
            )
        ),
        id="use-case-2-two-clique-subgroups",
    ),
    pytest.param(
        shards(M1, [req("gpu-clique", "model-1-group"), req("zone", "workflow-group")])
        + shards(M2, [req("gpu-clique", "model-2-group"), req("zone", "workflow-group")]),
        TopologyTree(
            required=ZONE,
            subgroups=(
                SubGroupSpec("workflow-group-model-1-group", CLIQUE, True, None, 4),
                SubGroupSpec("workflow-group-model-2-group", CLIQUE, True, None, 4),
            ),
        ),
        id="use-case-3-zone-on-podgroup-cliques-below",
    ),
    pytest.param(
        shards(M1, [req("rack", "model-1-group", False), req("spine", "workflow-group", False)])
        + shards(M2, [req("rack", "model-2-group", False), req("spine", "workflow-group", False)]),
        TopologyTree(
            preferred=SPINE,
            subgroups=(
                SubGroupSpec("workflow-group-model-1-group", RACK, False, None, 4),
                SubGroupSpec("workflow-group-model-2-group", RACK, False, None, 4),
            ),
        ),
        id="use-case-4-best-effort-all-preferred",
    ),
    pytest.param(
        [
            ("t1", [req("zone", "w"), req("rack", "r", False)]),
            ("t2", [req("zone", "w"), req("rack", "r", False)]),
        ],
        TopologyTree(required=ZONE, preferred=RACK),
        id="shared-required-zone-kept-beside-preferred-rack",
    ),
    pytest.param(
        [
            ("t1", [req("zone", "w", False), req("rack", "r")]),
            ("t2", [req("zone", "w", False), req("rack", "r")]),
        ],
        TopologyTree(required=RACK),
        id="shared-preferred-coarser-than-required-is-dropped",
    ),
    pytest.param(
        [("first", [req("rack", "g")]), ("second", [req("rack", "g", False)])],
        TopologyTree(required=RACK),
        id="first-task-sets-requirement-type",
    ),
    pytest.param(
        [
            ("t1", [req("zone", "zone-a"), req("rack", "r1")]),
            ("t2", [req("zone", "zone-b"), req("rack", "r1")]),
            ("t3", [req("zone", "zone-b"), req("rack", "r2")]),
        ],
        TopologyTree(
            subgroups=(
                SubGroupSpec("zone-a", ZONE, True),
                SubGroupSpec("zone-a-r1", RACK, True, "zone-a", 1),
                SubGroupSpec("zone-b", ZONE, True),
                SubGroupSpec("zone-b-r1", RACK, True, "zone-b", 1),
                SubGroupSpec("zone-b-r2", RACK, True, "zone-b", 1),
            )
        ),
        id="same-group-under-two-parents-distinct-single-child-kept",
    ),
    pytest.param(
        [("a", [req("gpu-clique", "g1")]), ("b", [req("gpu-clique", "g2")]), ("c", [])],
        TopologyTree(
            subgroups=(
                SubGroupSpec("g1", CLIQUE, True, None, 1),
                SubGroupSpec("g2", CLIQUE, True, None, 1),
                SubGroupSpec("catch-all", CLIQUE, False, None, 1),
            )
        ),
        id="untopologized-task-goes-to-preferred-catch-all",
    ),
    pytest.param(
        [
            ("a", [req("zone", "w"), req("rack", "r1")]),
            ("b", [req("zone", "w"), req("rack", "r2")]),
            ("c", []),
        ],
        TopologyTree(
            required=ZONE,
            subgroups=(
                SubGroupSpec("w-r1", RACK, True, None, 1),
                SubGroupSpec("w-r2", RACK, True, None, 1),
                SubGroupSpec("w-catch-all", RACK, False, None, 1),
            ),
        ),
        id="catch-all-under-the-branching-node",
    ),
    pytest.param(
        [
            ("a", [req("zone", "z1"), req("rack", "r1")]),
            ("b", [req("zone", "z2"), req("rack", "r1")]),
            ("c", []),
        ],
        TopologyTree(
            subgroups=(
                SubGroupSpec("z1", ZONE, True),
                SubGroupSpec("z1-r1", RACK, True, "z1", 1),
                SubGroupSpec("z2", ZONE, True),
                SubGroupSpec("z2-r1", RACK, True, "z2", 1),
                SubGroupSpec("catch-all", ZONE, False),
                SubGroupSpec("catch-all-pad", RACK, False, "catch-all", 1),
            )
        ),
        id="catch-all-padded-to-leaf-depth",
    ),
    pytest.param(
        [
            ("deep1", [req("zone", "w"), req("rack", "r1")]),
            ("deep2", [req("zone", "w"), req("rack", "r2")]),
            ("shallow", [req("zone", "w")]),
        ],
        TopologyTree(
            required=ZONE,
            subgroups=(
                SubGroupSpec("w-r1", RACK, True, None, 1),
                SubGroupSpec("w-r2", RACK, True, None, 1),
                SubGroupSpec("w-pad", RACK, False, None, 1),
            ),
        ),
        id="shallower-task-padded-with-preferred-level",
    ),
    pytest.param(
        [("a", [req("zone", "a"), req("rack", "b-c")]), ("b", [req("zone", "a-b"), req("rack", "c")])],
        TopologyTree(
            subgroups=(
                SubGroupSpec("a", ZONE, True),
                SubGroupSpec("a-b-c", RACK, True, "a", 1),
                SubGroupSpec("a-b", ZONE, True),
                SubGroupSpec("a-b-c-2", RACK, True, "a-b", 1),
            )
        ),
        id="colliding-joined-names-made-distinct",
    ),
    pytest.param(
        [("a", []), ("b", [])],
        TopologyTree(),
        id="no-topology-no-tree",
    ),
    pytest.param(
        [("a", [req("gpu-clique", "g1")]), ("b", [])],
        TopologyTree(required=CLIQUE),
        id="single-chain-covers-untopologized-task",
    ),
]


@pytest.mark.parametrize(("spec", "expected"), CASES)
def test_build_tree(spec: Sequence[tuple[str, Sequence[Requirement]]], expected: TopologyTree) -> None:
    tree = build_tree(tasks(spec))
    assert (tree.required, tree.preferred) == (expected.required, expected.preferred)
    assert tree.subgroups == expected.subgroups


def test_every_task_maps_to_a_leaf_when_subgroups_exist() -> None:
    spec = [
        ("a", [req("zone", "z1"), req("rack", "r1")]),
        ("b", [req("zone", "z2"), req("rack", "r1")]),
        ("c", []),
    ]
    tree = build_tree(tasks(spec))
    leaves = {sg.name for sg in tree.subgroups if sg.min_member is not None}
    assert dict(tree.task_subgroups) == {"a": "z1-r1", "b": "z2-r1", "c": "catch-all-pad"}
    assert set(tree.task_subgroups.values()) == leaves


def test_leaf_min_members_add_up_to_the_task_count() -> None:
    spec = shards(M1, [req("gpu-clique", "m1")], 3) + shards(M2, [req("gpu-clique", "m2")], 5) + [("x", [])]
    tree = build_tree(tasks(spec))
    assert sum(sg.min_member or 0 for sg in tree.subgroups) == 9


def test_parents_are_emitted_before_children() -> None:
    spec = [
        ("a", [req("zone", "z1"), req("spine", "s1"), req("rack", "r1")]),
        ("b", [req("zone", "z2"), req("spine", "s1"), req("rack", "r1")]),
    ]
    tree = build_tree(tasks(spec))
    seen: set[str] = set()
    for sg in tree.subgroups:
        assert sg.parent is None or sg.parent in seen
        seen.add(sg.name)
    assert [sg.name for sg in tree.subgroups] == ["z1", "z1-s1", "z1-s1-r1", "z2", "z2-s1", "z2-s1-r1"]
