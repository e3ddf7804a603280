"""Every hand-optimised path agrees with its short readable reference.

Pairs: ``distribute_each`` / ``distribute`` per list; ``BestFit.last_domains`` /
``BestFit.last_domain`` per list; ``place_on_rows`` / ``place_pods``; ``leaf_assignment`` and
``assignment``'s shortcut / merging the pairs; the leaderless ``fill_counts`` / ``aggregate``
level by level; the vectorised descent below the slice level (``_share_all``) / the per-parent
loop; ``fill_nodes`` (one sort) / placing pods one at a time; its folded sort key (``_best_first``) /
``np.lexsort``; ``Group.same_shape`` and the hierarchical solver's same-shape runs / comparing
every pod's shape.
"""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from builders import GPU, node, topology
from toposched.engine.core.counts import LevelCounts, aggregate, fill_counts, leaf_counts
from toposched.engine.core.greedy import distribute, distribute_each
from toposched.engine.core.output import assignment, leaf_assignment, ordered_pods, place_on_rows, place_pods
from toposched.engine.core.space import NodeSpace
from toposched.engine.core.strategy import Strategy, descent_order, last_domain
from toposched.engine.kai.binpack import _FOLD_FROM, _best_first, fill_nodes
from toposched.engine.kai.hierarchy import _same_shape_run
from toposched.engine.kueue.descend import _share_all
from toposched.engine.policies.bestfit import BEST_FIT
from toposched.engine.policies.leastfree import LEAST_FREE
from toposched.model import CPU, Group, Node, PodSpec, Resources, Toleration
from toposched.snapshot import Snapshot
from toposched.topology import IntArray, TopologyTree

SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
STRATEGIES = st.sampled_from([BEST_FIT, LEAST_FREE])


def ints(values: list[int]) -> IntArray:
    return np.asarray(values, dtype=np.int64)


def level_counts(pods: list[int], unit: int) -> LevelCounts:
    pod = ints(pods)
    return LevelCounts(0, pod, pod.copy(), pod // unit, pod // unit, np.zeros(len(pods), dtype=np.int64))


def same(a: LevelCounts, b: LevelCounts) -> bool:
    return all(
        np.array_equal(x, y)
        for x, y in (
            (a.pods, b.pods),
            (a.pods_with_leader, b.pods_with_leader),
            (a.slices, b.slices),
            (a.slices_with_leader, b.slices_with_leader),
            (a.lead, b.lead),
        )
    )


# -- distribute_each: distribute for many lists at once -------------------------------------------


@st.composite
def domain_lists(draw: st.DrawFn) -> tuple[list[int], list[int], list[int], int, bool, bool]:
    """(pods per domain, list lengths, pods each list takes, unit, slices, ascending)."""
    unit = draw(st.sampled_from([1, 2, 3]))
    slices = unit > 1 or draw(st.booleans())
    ascending = draw(st.booleans())
    pods: list[int] = []
    lengths: list[int] = []
    wanted: list[int] = []
    for _ in range(draw(st.integers(1, 5))):
        part = draw(st.lists(st.integers(0, 12), min_size=1, max_size=6))
        if ascending:
            part.sort(key=lambda p: p // unit if slices else p)
        units = sum(p // unit for p in part) if slices else sum(part)
        if units == 0:
            part[-1] += unit
            units = sum(p // unit for p in part) if slices else sum(part)
        take = draw(st.integers(1, units))
        pods += part
        lengths.append(len(part))
        wanted.append(take * unit if slices else take)
    return pods, lengths, wanted, unit, slices, ascending


@SETTINGS
@given(domain_lists(), STRATEGIES)
def test_distribute_each_agrees_with_distribute_per_list(
    case: tuple[list[int], list[int], list[int], int, bool, bool], strategy: Strategy
) -> None:
    pods, lengths, wanted, unit, slices, ascending = case
    fast, slow = level_counts(pods, unit), level_counts(pods, unit)
    domains = np.arange(len(pods), dtype=np.int64)
    chosen = distribute_each(
        fast, ints(lengths), domains, ints(wanted), unit, strategy, slices, ascending=ascending
    )
    expected: list[int] = []
    start = 0
    for length, count in zip(lengths, wanted, strict=True):
        part = domains[start : start + length]
        expected += distribute(slow, part, count, 0, unit, strategy, slices).tolist()
        start += length
    assert chosen.tolist() == expected
    assert same(fast, slow)


@SETTINGS
@given(st.lists(st.lists(st.integers(0, 9), min_size=1, max_size=6), min_size=1, max_size=5), st.data())
def test_best_fit_last_domains_agree_with_last_domain(lists: list[list[int]], data: st.DataObject) -> None:
    firsts: list[int] = []
    needed: list[int] = []
    expected: list[int] = []
    start = 0
    for units in lists:
        k = data.draw(st.integers(0, len(units) - 1))
        need = data.draw(st.integers(0, units[k]))
        firsts.append(start + k)
        needed.append(need)
        expected.append(start + k + last_domain(BEST_FIT, ints(units[k:]), need))
        start += len(units)
    flat = ints([u for units in lists for u in units])
    lengths = ints([len(units) for units in lists])
    assert BEST_FIT.last_domains(flat, lengths, ints(firsts), ints(needed)).tolist() == expected
    assert LEAST_FREE.last_domains(flat, lengths, ints(firsts), ints(needed)).tolist() == firsts


# -- trees ----------------------------------------------------------------------------------------


@st.composite
def trees(draw: st.DrawFn) -> TopologyTree:
    """Block / rack (/ host): with hostname lowest, or racks of several nodes as leaves."""
    by_host = draw(st.booleans())
    levels = ("block", "rack", "host") if by_host else ("block", "rack")
    nodes: list[Node] = []
    for b in range(draw(st.integers(1, 3))):
        for r in range(draw(st.integers(1, 3))):
            for n in range(draw(st.integers(1, 3))):
                name = f"b{b}r{r}n{n}"
                place = {"block": f"b{b}", "rack": f"b{b}r{r}"} | ({"host": name} if by_host else {})
                nodes.append(node(name).at(**place).alloc(cpu=draw(st.integers(0, 8))).build())
    return TopologyTree.build(topology(*levels), nodes)


@st.composite
def leaves_with_pods(draw: st.DrawFn) -> Group:
    count = draw(st.integers(0, 8))
    indices = draw(st.permutations(range(count)))
    return Group("leaf", pods=tuple(PodSpec(f"p{i}", i) for i in indices))


@SETTINGS
@given(trees(), leaves_with_pods(), st.data())
def test_place_on_rows_agrees_with_place_pods(tree: TopologyTree, leaf: Group, data: st.DataObject) -> None:
    rows = data.draw(
        st.lists(st.integers(0, tree.node_count - 1), min_size=len(leaf.pods), max_size=len(leaf.pods) + 2)
    )
    slots = [(int(tree.node_domain[-1][r]), r) for r in rows]
    reference = place_pods(tree, leaf, ordered_pods(leaf), slots)
    assert place_on_rows(tree, leaf, ints(rows)) == reference


@SETTINGS
@given(trees(), st.data())
def test_leaf_assignment_agrees_with_assignment(tree: TopologyTree, data: st.DataObject) -> None:
    count = len(tree.leaf_start)
    leaves = sorted(data.draw(st.sets(st.integers(0, count - 1))))
    pods = [data.draw(st.integers(1, 5)) for _ in leaves]
    expected = assignment(tree, list(zip(leaves, pods, strict=True)))
    assert leaf_assignment(tree, ints(leaves), ints(pods)) == expected


@SETTINGS
@given(trees(), st.data())
def test_assignment_merges_repeats_and_drops_zeros(tree: TopologyTree, data: st.DataObject) -> None:
    count = len(tree.leaf_start)
    pairs = data.draw(st.lists(st.tuples(st.integers(0, count - 1), st.integers(0, 3)), max_size=8))
    merged: dict[int, int] = {}
    for leaf, pods in pairs:
        merged[leaf] = merged.get(leaf, 0) + pods
    kept = [(leaf, merged[leaf]) for leaf in sorted(merged) if merged[leaf] > 0]
    expected = [(tree.leaf_values[leaf], pods) for leaf, pods in kept]
    assert [(d.values, d.count) for d in assignment(tree, pairs).domains] == expected


# -- phase 1 without a leader ---------------------------------------------------------------------


@SETTINGS
@given(trees(), st.data())
def test_leaderless_fill_agrees_with_aggregate(tree: TopologyTree, data: st.DataObject) -> None:
    node_pods = ints([data.draw(st.integers(0, 6)) for _ in range(tree.node_count)])
    slice_level = data.draw(st.integers(0, tree.leaf_level))
    slice_size = data.draw(st.sampled_from([1, 2, 4]))
    inner: dict[int, int] = {}
    if slice_level < tree.leaf_level and data.draw(st.booleans()):
        inner[slice_level + 1] = data.draw(st.sampled_from([d for d in (1, 2, 4) if slice_size % d == 0]))
    fast = fill_counts(tree, node_pods, slice_level=slice_level, slice_size=slice_size, inner_sizes=inner)
    reference = [leaf_counts(tree, node_pods, None, None, slice_level, slice_size)]
    for level in range(tree.depth - 2, -1, -1):
        n = tree.count(level)
        zeros = [np.zeros(n, dtype=np.int64) for _ in range(5)]
        counts = LevelCounts(0, *zeros)
        aggregate(
            tree,
            counts,
            reference[0],
            level,
            0,
            n,
            slice_level=slice_level,
            slice_size=slice_size,
            inner_sizes=inner,
            leader=False,
        )
        reference.insert(0, counts)
    assert all(same(a, b) for a, b in zip(fast, reference, strict=True))


# -- descent below the slice level: all parents at once vs one by one -----------------------------


@SETTINGS
@given(trees(), STRATEGIES, st.data())
def test_share_all_agrees_with_the_per_parent_loop(
    tree: TopologyTree, strategy: Strategy, data: st.DataObject
) -> None:
    level = data.draw(st.integers(0, tree.leaf_level - 1))  # every tree has two levels or more
    node_pods = ints([data.draw(st.integers(0, 6)) for _ in range(tree.node_count)])
    counts = fill_counts(tree, node_pods, slice_level=level, slice_size=1, inner_sizes={})
    parent = counts[level]
    holding = [d for d in range(tree.count(level)) if parent.pods[d] > 0]
    current = ints(data.draw(st.permutations(holding)))
    for d in current.tolist():  # each chosen parent gives out some of what it holds
        parent.pods[d] = data.draw(st.integers(1, int(parent.pods[d])))
    child = counts[level + 1]
    fast_child = LevelCounts(
        0,
        child.pods.copy(),
        child.pods_with_leader.copy(),
        child.slices.copy(),
        child.slices_with_leader.copy(),
        child.lead.copy(),
    )
    chosen = _share_all(tree, parent, fast_child, level, current, 1, strategy)
    expected: list[int] = []
    for d in current.tolist():
        start, end = tree.children(level, d)
        kids = descent_order(strategy, child, np.arange(start, end, dtype=np.int64))
        expected += distribute(child, kids, int(parent.pods[d]), 0, 1, strategy, slices=False).tolist()
    assert chosen.tolist() == expected
    assert same(fast_child, child)


# -- KAI's node fill: one sort vs one pod at a time ------------------------------------------------


def fill_one_by_one(
    space: NodeSpace,
    rows: IntArray,
    vec: IntArray,
    allowed: IntArray,
    scores: IntArray | None,
    pack: str,
    count: int,
) -> list[tuple[int, int]]:
    """Each pod on the best row that still fits: highest score, least free ``pack``, then row."""
    free = space.ledger.free.copy()
    col = space.ledger.columns.get(pack)
    out: list[tuple[int, int]] = []
    for _ in range(count):
        fitting = [int(r) for r in rows if allowed[r] and (free[r] >= vec).all()]
        if not fitting:
            break
        best = min(
            fitting,
            key=lambda r: (
                -(int(scores[r]) if scores is not None else 0),
                int(free[r, col]) if col is not None else 0,
                r,
            ),
        )
        free[best] -= vec
        if out and out[-1][0] == best:
            out[-1] = (best, out[-1][1] + 1)
        else:
            out.append((best, 1))
    return out


@SETTINGS
@given(trees(), st.data())
def test_fill_nodes_agrees_with_placing_pods_one_at_a_time(tree: TopologyTree, data: st.DataObject) -> None:
    space = NodeSpace(Snapshot.build(tree))
    vec = space.ledger.vector(Resources({CPU: data.draw(st.integers(1, 3)) * 1000}))
    if data.draw(st.booleans()):  # one row range (read as a view) or any rows
        lo = data.draw(st.integers(0, space.size - 1))
        rows = np.arange(lo, data.draw(st.integers(lo + 1, space.size)), dtype=np.int64)
    else:
        rows = ints(sorted(data.draw(st.sets(st.integers(0, space.size - 1), min_size=1))))
    allowed = np.asarray([data.draw(st.booleans()) for _ in range(space.size)], dtype=np.bool_)
    scores = (
        ints([data.draw(st.integers(0, 3)) for _ in range(space.size)]) if data.draw(st.booleans()) else None
    )
    count = data.draw(st.integers(1, 12))
    expected = fill_one_by_one(space, rows, vec, allowed, scores, CPU, count)
    assert fill_nodes(space, rows, vec, allowed, scores, CPU, count) == expected


@SETTINGS
@given(st.data())
def test_best_first_is_lexsort_order(data: st.DataObject) -> None:
    n = data.draw(st.sampled_from([1, 7, _FOLD_FROM, _FOLD_FROM + 300]))
    top = data.draw(st.sampled_from([3, 1000, 1 << 40]))  # the last too wide to fold
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    rank = rng.permutation(n).astype(np.int64)
    second = rng.integers(-top, top, n)
    first = rng.integers(-top, 1, n) if data.draw(st.booleans()) else None
    keys = (rank, second) if first is None else (rank, second, first)
    assert _best_first(first, second, rank).tolist() == np.lexsort(keys).tolist()


# -- the IR's same-shape fact ---------------------------------------------------------------------

SHAPES = [
    (Resources({CPU: 1000}), (), {}),
    (Resources({CPU: 2000}), (), {}),
    (Resources({CPU: 1000}), (Toleration("dedicated"),), {}),
    (Resources({CPU: 1000, GPU: 1}), (), {"zone": "a"}),
]


def pods_of(kinds: list[int]) -> tuple[PodSpec, ...]:
    return tuple(
        PodSpec(f"p{i}", i, SHAPES[k][0], SHAPES[k][1], dict(SHAPES[k][2])) for i, k in enumerate(kinds)
    )


@SETTINGS
@given(st.lists(st.sampled_from(range(len(SHAPES))), max_size=8))
def test_same_shape_agrees_with_comparing_every_pod(kinds: list[int]) -> None:
    pods = pods_of(kinds)
    assert Group("leaf", pods=pods).same_shape is all(p.shape == pods[0].shape for p in pods)


@SETTINGS
@given(st.lists(st.sampled_from(range(len(SHAPES))), min_size=1, max_size=8), st.data())
def test_same_shape_run_agrees_with_comparing_shapes(kinds: list[int], data: st.DataObject) -> None:
    pods = list(pods_of(kinds))
    start = data.draw(st.integers(0, len(pods) - 1))
    end = start + 1
    while end < len(pods) and pods[end].shape == pods[start].shape:
        end += 1
    assert _same_shape_run(pods, start) == end - start
