"""The vectorised tree build agrees with its readable definition, for any label values.

The tree keeps domain paths as integer codes sorted by numpy; the reference below sorts the
members' (path, name) tuples with Python and numbers the distinct path prefixes. Label values
include NUL characters (which numpy's fixed-width strings drop at the end) and non-ASCII text.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from builders import BLOCK, HOST, RACK, node, topology
from toposched.model import Node, Topology
from toposched.topology import TopologyTree
from toposched.topology.paths import python_string_order, string_order, value_codes

SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
TEXT = st.text(alphabet="ab\x00é😀", max_size=3)
TOPOLOGIES = st.sampled_from([topology("block", "rack", "host"), topology("block", "rack"), topology("host")])


@st.composite
def clusters(draw: st.DrawFn) -> tuple[Topology, list[Node]]:
    """Nodes with distinct names and labels from a tiny alphabet (so paths repeat and collide)."""
    names = draw(st.lists(TEXT.filter(bool), unique=True, max_size=24))
    nodes = []
    for name in names:
        labels = {key: draw(TEXT) for key in (BLOCK, RACK, HOST) if draw(st.integers(0, 9))}
        nodes.append(node(name).labels(labels).build())
    return draw(TOPOLOGIES), nodes


def reference_members(topology: Topology, nodes: list[Node]) -> list[tuple[tuple[str, ...], str]]:
    """(path, name) of every member, in tree order."""
    members = [n for n in nodes if n.schedulable and all(key in n.labels for key in topology.levels)]
    return sorted((tuple(n.labels[key] for key in topology.levels), n.name) for n in members)


@SETTINGS
@given(clusters())
def test_tree_matches_sorting_paths_and_numbering_their_prefixes(case: tuple[Topology, list[Node]]) -> None:
    topo, nodes = case
    tree = TopologyTree.build(topo, nodes)
    members = reference_members(topo, nodes)
    assert tree.node_names == tuple(name for _, name in members)
    for level in range(tree.depth):
        paths = sorted({path[: level + 1] for path, _ in members})
        assert list(tree.paths[level]) == paths
        assert tree.count(level) == len(paths)
        assert [tree.path(level, i) for i in range(len(paths))] == paths
        assert tree.node_domain[level].tolist() == [paths.index(path[: level + 1]) for path, _ in members]
        assert [tree.index_of(level, p) for p in paths] == list(range(len(paths)))
        if paths:  # "z" is not in the alphabet
            assert tree.index_of(level, (*paths[-1][:-1], "z")) is None
        if level:
            above = sorted({path[:level] for path, _ in members})
            assert tree.parent[level].tolist() == [above.index(p[:-1]) for p in paths]
    assert tree.node_leaf_path.tolist() == [path for path, _ in members]
    assert [tree.node_index(name) for _, name in members] == list(range(len(members)))


@SETTINGS
@given(clusters())
def test_leaf_entries_read_back(case: tuple[Topology, list[Node]]) -> None:
    topo, nodes = case
    tree = TopologyTree.build(topo, nodes)
    leaves = list(tree.paths[-1])
    entries = [leaf[-1:] for leaf in leaves] if topo.hostname_is_lowest else leaves
    assert list(tree.leaf_values) == entries
    # A hostname names its first leaf (the same hostname may sit under two racks).
    assert [tree.leaf_for_values(entry) for entry in entries] == [entries.index(e) for e in entries]
    assert tree.leaf_for_values(("no such value",)) is None


@SETTINGS
@given(st.lists(st.text(), max_size=30), st.lists(TEXT, max_size=30))
def test_numpy_string_order_is_python_order(strings: list[str], with_nul: list[str]) -> None:
    for case in (strings, with_nul):
        assert string_order(case).tolist() == python_string_order(case).tolist()
        assert [case[i] for i in string_order(case).tolist()] == sorted(case)


@SETTINGS
@given(st.lists(st.text(alphabet="ab\x00é😀", max_size=4), max_size=40), st.booleans())
def test_value_codes_number_the_sorted_distinct_values(values: list[str], distinct: bool) -> None:
    """Mostly distinct values take numpy's sort, repeated ones the dict (both, with NULs)."""
    if distinct:
        values = list(dict.fromkeys(values))
    ordered, codes = value_codes(values)
    expected = sorted(set(values))
    assert ordered.tolist() == expected
    assert codes.tolist() == [expected.index(v) for v in values]
