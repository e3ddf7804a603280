"""The bin-pack fast paths agree with their readable twins.

Pairs: ``DomainSums`` kept current through charges and undos / summing every row again;
``sum_levels`` (row ranges) / ``sum_levels_by_code``; ``level_fits`` (over the cluster or within
one domain) / ``level_fits_direct``; the candidate rows of a domain by row range / by grouping
the rows; ``sorted_levels`` / sorting each parent's children in turn. Node names are drawn out
of topology order so that the name tie-break (``NodeSpace.name_rank``) differs from the row order.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from builders import GPU, node, topology
from toposched.engine.core.caches import EngineCaches
from toposched.engine.core.domain_sums import sum_levels, sum_levels_by_code
from toposched.engine.core.space import NodeSpace, TopoView
from toposched.engine.kai.binpack import LevelFit, level_fits, level_fits_direct, sorted_levels
from toposched.engine.kai.candidates import _lowest_common, _members, _members_by_domain
from toposched.model import CPU, Node, PodSpec, Resources
from toposched.snapshot import Snapshot
from toposched.topology import IntArray, TopologyTree

SETTINGS = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def clusters(draw: st.DrawFn) -> list[Node]:
    """Block / rack / host, names shuffled against the topology, some nodes only in a second
    topology (no rack label), some with a little GPU."""
    count = draw(st.integers(1, 24))
    names = draw(st.permutations([f"n{i:02d}" for i in range(count)]))
    nodes = []
    for i, name in enumerate(names):
        place = {"block": f"b{i // 8}", "host": name}
        if draw(st.integers(0, 5)):
            place["rack"] = f"r{i // 3}"
        nodes.append(
            node(name).at(**place).alloc(cpu=draw(st.integers(0, 8)), gpu=draw(st.integers(0, 2))).build()
        )
    return nodes


def spaces(nodes: list[Node], joined: bool) -> NodeSpace:
    main = Snapshot.build(TopologyTree.build(topology("block", "rack", "host"), nodes))
    if not joined:
        return NodeSpace(main)
    other = Snapshot.build(TopologyTree.build(topology("block", "host", name="flat"), nodes))
    return NodeSpace(main, {"flat": other})


def charge_some(space: NodeSpace, data: st.DataObject, vec: IntArray) -> None:
    """Random charges and undos on the space's ledger."""
    marks: list[int] = []
    for _ in range(data.draw(st.integers(0, 6 if space.size else 0))):
        if marks and data.draw(st.booleans()):
            space.ledger.undo(marks.pop(data.draw(st.integers(0, len(marks) - 1))))
            marks = [m for m in marks if m <= space.ledger.mark()]
            continue
        marks.append(space.ledger.mark())
        rows = np.asarray(
            data.draw(st.lists(st.integers(0, space.size - 1), min_size=1, max_size=4)), dtype=np.int64
        )
        space.ledger.charge(rows, np.ones(len(rows), dtype=np.int64), vec)


@SETTINGS
@given(clusters(), st.booleans(), st.data())
def test_domain_sums_follow_charges_and_undos(nodes: list[Node], joined: bool, data: st.DataObject) -> None:
    space = spaces(nodes, joined)
    vec = space.ledger.vector(Resources({CPU: 1000, GPU: data.draw(st.integers(0, 1))}))
    for view in space.views.values():
        cpu = space.sums(view, "cpu", lambda rows: np.maximum(space.ledger.column(CPU)[rows], 0))
        cpu.down_to(data.draw(st.integers(-1, view.tree.depth - 1)))
    charge_some(space, data, vec)
    for view in space.views.values():
        deepest = view.tree.depth - 1
        fresh = np.maximum(space.ledger.column(CPU), 0)
        expected = [fresh[view.member].sum(), *sum_levels_by_code(view, fresh, deepest)]
        got = space.sums(view, "cpu", lambda rows: np.maximum(space.ledger.column(CPU)[rows], 0)).down_to(
            deepest
        )
        assert [a.tolist() for a in got] == [np.atleast_1d(a).tolist() for a in expected]
        assert [a.tolist() for a in sum_levels(view, fresh, deepest)] == [a.tolist() for a in expected[1:]]


@SETTINGS
@given(clusters(), st.booleans(), st.data())
def test_level_fits_agrees_with_summing_every_row(
    nodes: list[Node], joined: bool, data: st.DataObject
) -> None:
    space = spaces(nodes, joined)
    shapes = [Resources({CPU: 1000}), Resources({CPU: 2000, GPU: 1}), Resources({CPU: 500, GPU: 1})]
    kinds = data.draw(st.lists(st.sampled_from(shapes), min_size=1, max_size=3))
    pods = [PodSpec(f"p{i}", i, kinds[i % len(kinds)]) for i in range(data.draw(st.integers(1, 10)))]
    for _ in range(2):  # before and after charges: the sums made first must follow them
        for view in space.views.values():
            deepest = data.draw(st.integers(0, view.tree.depth - 1))
            fast, direct = (
                level_fits(space, view, pods, deepest),
                level_fits_direct(space, view, pods, deepest),
            )
            assert fast.keys() == direct.keys()
            for level, fit in fast.items():
                other = direct[level]
                assert np.array_equal(fit.ratio, other.ratio) and np.array_equal(fit.fits, other.fits)
                assert (fit.capacity is None) == (other.capacity is None)
                assert fit.capacity is None or np.array_equal(fit.capacity, other.capacity)
        charge_some(space, data, space.ledger.vector(shapes[1]))


@SETTINGS
@given(clusters(), st.booleans(), st.data())
def test_level_fits_within_a_domain_agree_with_summing_every_row(
    nodes: list[Node], joined: bool, data: st.DataObject
) -> None:
    space = spaces(nodes, joined)
    view = space.views[space.default]
    shapes = [
        Resources({CPU: 1000}),
        Resources({CPU: 2000, GPU: 1}),
        Resources({CPU: 500, "example.com/fpga": 1}),  # a resource no node has
    ]
    kinds = data.draw(st.lists(st.sampled_from(shapes), min_size=1, max_size=3))
    pods = [PodSpec(f"p{i}", i, kinds[i % len(kinds)]) for i in range(data.draw(st.integers(1, 10)))]
    charge_some(space, data, space.ledger.vector(shapes[1]))
    top = data.draw(st.integers(0, view.tree.depth - 1))
    assume(view.tree.count(top) > 0)  # no node of the cluster carries every level
    index = data.draw(st.integers(0, view.tree.count(top) - 1))
    deepest = data.draw(st.integers(top, view.tree.depth - 1))
    kept = data.draw(st.booleans())
    if kept:  # the fits over the cluster are kept for this capacity: they answer
        level_fits(space, view, pods, deepest)
    fast = level_fits(space, view, pods, deepest, within=(top, index))
    direct = level_fits_direct(space, view, pods, deepest)
    assert set(fast) >= set(range(top, deepest + 1))  # kept fits hold the levels above too
    for level in range(top, deepest + 1):
        fit = fast[level]
        first, last = view.tree.descendants(top, index, level)
        inside, other = slice(first, last), direct[level]
        assert np.array_equal(fit.ratio[inside], other.ratio[inside])
        assert np.array_equal(fit.fits[inside], other.fits[inside])
        assert (fit.capacity is None) == (other.capacity is None)
        assert fit.capacity is None or np.array_equal(fit.capacity[inside], other.capacity[inside])
        assert kept or fit.fits.sum() == fit.fits[inside].sum()  # else nothing outside fits


@SETTINGS
@given(clusters(), st.booleans(), st.data())
def test_candidate_rows_by_range_agree_with_grouping(
    nodes: list[Node], joined: bool, data: st.DataObject
) -> None:
    space = spaces(nodes, joined)
    view = space.views[space.default]
    assert view.bounds is not None
    twin = replace(view, bounds=None)
    rows = np.asarray(sorted(data.draw(st.sets(st.integers(0, max(space.size - 1, 0))))), dtype=np.int64)
    rows = rows[rows < space.size]
    valid = _members(view, rows)
    assert valid.tolist() == _members(twin, rows).tolist()
    for deepest in range(view.tree.depth):
        assert _lowest_common(view, valid, deepest) == _lowest_common(twin, valid, deepest)
    for level in range(-1, view.tree.depth):
        fast, slow = _members_by_domain(view, valid, level), _members_by_domain(twin, valid, level)
        for domain in range(1 if level < 0 else view.tree.count(level)):
            assert fast(domain).tolist() == slow(domain).tolist()


@SETTINGS
@given(clusters(), st.booleans())
def test_rows_follow_the_main_tree_and_names_rank_them(nodes: list[Node], joined: bool) -> None:
    space = spaces(nodes, joined)
    by_rank = [space.names[i] for i in np.argsort(space.name_rank)]
    assert by_rank == sorted(space.names) and len(set(space.names)) == space.size
    main: TopoView = space.views[space.default]
    assert space.names[: main.tree.node_count] == main.tree.node_names
    assert main.bounds is not None
    for level, bounds in enumerate(main.bounds):
        for domain in range(main.tree.count(level)):
            inside = main.codes[level][bounds[domain] : bounds[domain + 1]]
            assert (inside == domain).all()
    for view in space.views.values():  # every view names each member row's own node
        for row in np.flatnonzero(view.member).tolist():
            leaf = int(view.codes[-1][row])
            assert space.names[row] in [view.tree.node_names[i] for i in view.tree.leaf_nodes(leaf)]


@SETTINGS
@given(clusters(), st.data())
def test_level_fits_kept_for_unchanged_sums_agree_after_rollbacks(
    nodes: list[Node], data: st.DataObject
) -> None:
    """Fits (and their orders) kept from an earlier state of the sums, within a placement and
    across placements on one snapshot, are those of the current capacity."""
    snapshot = Snapshot.build(TopologyTree.build(topology("block", "rack", "host"), nodes))
    pods = [PodSpec(f"p{i}", i, Resources({CPU: 1000, GPU: 1})) for i in range(data.draw(st.integers(1, 6)))]
    caches = EngineCaches()
    for _ in range(3):  # each placement starts from the snapshot again
        with NodeSpace.open(snapshot, None, caches) as space:
            view = space.views[space.default]
            for _ in range(3):
                deepest = view.tree.depth - 1
                fast = level_fits(space, view, pods, deepest, same_shape=True)
                direct = level_fits_direct(space, view, pods, deepest)
                for level, fit in fast.items():
                    assert np.array_equal(fit.ratio, direct[level].ratio)
                    assert np.array_equal(fit.fits, direct[level].fits)
                assert fast.ordered(view, -1, 0, deepest) == sorted_levels(view, direct, -1, 0, deepest)
                charge_some(space, data, space.ledger.vector(pods[0].requests))


def sorted_one_by_one(
    view: TopoView, fits: dict[int, LevelFit], top: int, top_index: int, deepest: int
) -> dict[int, list[int]]:
    """``sorted_levels`` by sorting each parent's children in turn."""
    tree, order = view.tree, {top: [top_index]}
    for level in range(top + 1, deepest + 1):
        kids: list[int] = []
        for parent in order[level - 1]:
            first, last = (0, tree.count(0)) if level == 0 else tree.children(level - 1, parent)
            ranked = tree.columns.dotted_rank(level)
            kids += sorted(range(first, last), key=lambda k: (-fits[level].ratio[k], ranked[k]))
        order[level] = kids
    return order


@SETTINGS
@given(clusters(), st.data())
def test_sorted_levels_sorts_each_parents_children(nodes: list[Node], data: st.DataObject) -> None:
    space = spaces(nodes, False)
    view = space.views[space.default]
    assume(view.tree.count(0) > 0)
    top = data.draw(st.integers(-1, view.tree.depth - 1))
    index = 0 if top < 0 else data.draw(st.integers(0, view.tree.count(top) - 1))
    deepest = data.draw(st.integers(max(top, 0), view.tree.depth - 1))
    fits: dict[int, LevelFit] = {}
    for level in range(top + 1, deepest + 1):
        size = view.tree.count(level)
        ratios = st.lists(st.sampled_from([0.25, 0.5, 1.0]), min_size=size, max_size=size)
        ratio = np.asarray(data.draw(ratios))
        fits[level] = LevelFit(ratio, None, ratio <= 1.0)
    expected = sorted_one_by_one(view, fits, top, index, deepest)
    assert sorted_levels(view, fits, top, index, deepest) == expected
