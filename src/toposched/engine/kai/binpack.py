"""BINPACK, KAI's ordering: the fullest domain that fits first, nodes packed toward a preferred level.

* Domain fit: for pods of one kind (all or none request each extended resource) a domain holds
  the sum over its nodes of whole copies of the largest pod; otherwise the summed requests must
  not exceed the domain's free resources (ratio <= 1).
* ratio = max over requested resources (the ``pods`` slot ignored) of requested / free, a
  resource with nothing free counting as 1000. Siblings are ordered by ratio descending (fuller
  relative to the request first), ties by the domain id (``zone1.rack2``) ascending. The order is
  hierarchical: parents are ordered before their children are compared.
* Node order inside the chosen node set: when a group prefers a level, the preferred-level
  domains inside its lowest common domain are scored by position in that order,
  ``floor(10 * (i + 1) / N)``, so the least loaded sub-domain scores highest; among the least
  loaded ones the later id (KAI), among other equally loaded ones the smaller id (the seed);
  then GPU bin-packing (less free GPU first, CPU for CPU-only pods); then node name.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from itertools import accumulate
from operator import attrgetter

import numpy as np
import numpy.typing as npt

from toposched.engine.core.caches import Slot
from toposched.engine.core.domain_sums import DomainSums, RowValues
from toposched.engine.core.ranges import expand
from toposched.engine.core.rowwise import take_rows
from toposched.engine.core.space import NodeSpace, RowScores, TopoView
from toposched.model import CPU, MEMORY, PODS, PodSpec, Resources
from toposched.snapshot import BoolArray
from toposched.topology import IntArray

FloatArray = npt.NDArray[np.float64]
NOTHING_FREE = 1000.0  # KAI's ratio for a requested resource with no free amount
_BASIC = frozenset({CPU, MEMORY, PODS, "ephemeral-storage"})
_FOLD_LIMIT = 1 << 62  # a folded sort key stays within int64
_FOLD_FROM = 512  # rows from which one folded sort key pays for folding


def pod_kinds(pods: list[PodSpec], *, same_shape: bool = False) -> Counter[Resources]:
    """Pods per distinct request vector (a gang has few), so sums need not walk every pod.
    ``same_shape``: the caller knows they all have the first one's (no pod is read)."""
    if same_shape and pods:
        known: Counter[Resources] = Counter()
        known[pods[0].requests] = len(pods)
        return known
    requests = list(map(attrgetter("requests"), pods))
    if requests and requests.count(requests[0]) == len(requests):  # compared in C
        one: Counter[Resources] = Counter()
        one[requests[0]] = len(requests)
        return one
    return Counter(requests)


def summed(kinds: Counter[Resources]) -> dict[str, int]:
    """Requests of all pods (``pod_kinds``) added up, the ``pods`` slot left out."""
    out: dict[str, int] = {}
    for requests, n in kinds.items():
        for resource, amount in requests.items():
            if resource != PODS and amount > 0:
                out[resource] = out.get(resource, 0) + amount * n
    return out


def homogeneous(kinds: Counter[Resources]) -> bool:
    """Every extended resource (GPUs included) is requested by all pods or by none."""
    extended = {r for k in kinds for r, a in k.items() if a > 0 and r not in _BASIC}
    return all(all(k[r] > 0 for k in kinds) for r in extended)


def representative(kinds: Counter[Resources]) -> Resources:
    """The element-wise largest pod."""
    out = Resources()
    for requests in kinds:
        out = out.maximum(requests)
    return out


@dataclass(frozen=True, slots=True)
class LevelFit:
    """Per domain of one level (the root is a level of one domain): ratio, capacity, fit."""

    ratio: FloatArray
    capacity: IntArray | None  # whole pods, for homogeneous pods only
    fits: BoolArray


class LevelFits(dict[int, LevelFit]):
    """``LevelFit`` per level (the root is -1), and the domain orders sorted from them so far
    (``ordered``) with the topology scores of those orders (``scored``): the fits of unchanged
    sums are reused, and their orders and scores with them."""

    def __init__(self, fits: dict[int, LevelFit]) -> None:
        super().__init__(fits)
        self._orders: dict[tuple[int, int, int], dict[int, list[int]]] = {}
        self._scores: dict[tuple[int, int, int, int], RowScores] = {}

    def ordered(self, view: TopoView, top: int, top_index: int, deepest: int) -> dict[int, list[int]]:
        """``sorted_levels`` for these fits (made once per arguments; read-only)."""
        key = (top, top_index, deepest)
        found = self._orders.get(key)
        if found is None:
            found = self._orders[key] = sorted_levels(view, self, top, top_index, deepest)
        return found

    def scored(self, view: TopoView, top: int, top_index: int, deepest: int, level: int) -> RowScores:
        """``topology_scores`` of ``level`` (below ``top``) in the ``ordered`` order (made once
        per arguments; read-only)."""
        key = (top, top_index, deepest, level)
        found = self._scores.get(key)
        if found is None:
            ordered = self.ordered(view, top, top_index, deepest)[level]
            found = self._scores[key] = topology_scores(view, level, ordered, self[level].ratio)
        return found


def level_fits(
    space: NodeSpace,
    view: TopoView,
    pods: list[PodSpec],
    deepest: int,
    *,
    same_shape: bool = False,
    within: tuple[int, int] | None = None,
) -> LevelFits:
    """``LevelFit`` for the root (key -1) and levels 0..``deepest``, over every member node of the
    topology (nodes outside the caller's node set count too, as in KAI).

    From the space's per-domain sums, which a placement computes once and keeps current (see
    ``level_fits_direct`` for the same from every row); made once per state of those sums and
    pods' demand. Whole-pod capacities count at most ``len(pods)`` per node: when a node holds
    more, the direct computation answers. ``same_shape``: as for ``pod_kinds``.

    ``within`` (level, domain), for a view whose domains are row ranges: the caller reads only
    the levels from that one to ``deepest`` and only their domains inside that domain. Unless
    the sums over the cluster are current (nothing to read again), those are read from its rows
    alone (a subgroup inside the domain its parent chose, after a sibling took some of it: no
    pass over the cluster, no sums to bring up to date), every other domain reading as not
    fitting."""
    kinds = tuple(pod_kinds(pods, same_shape=same_shape).items())
    total, rep, want = space.caches.memo(_DEMAND, kinds, lambda: _demand(kinds))
    if rep is not None and not rep:
        return level_fits_direct(space, view, pods, deepest)
    resources = tuple(total)
    if within is not None and view.bounds is not None:
        kept = space.kept_sums(view, ("fit", resources, rep))
        if kept is None or not kept.current(deepest):
            rows = slice(*_row_range(view, *within))
            per_row = _fit_values(space, resources, rep)(rows)
            return _within(view, per_row, len(pods), want, rep is not None, deepest, within)
    free = space.sums(view, ("fit", resources, rep), _fit_values(space, resources, rep))
    return free.derived(
        ("fits", kinds, deepest), lambda: _from_sums(space, view, pods, deepest, free, want, rep)
    )


def _row_range(view: TopoView, level: int, domain: int) -> tuple[int, int]:
    """The rows [lo, hi) of one domain of a view whose domains are row ranges."""
    assert view.bounds is not None
    lo, hi = view.bounds[level][domain : domain + 2].tolist()
    return lo, hi


def _within(
    view: TopoView,
    per_row: IntArray,
    n: int,
    want: FloatArray,
    whole: bool,
    deepest: int,
    within: tuple[int, int],
) -> LevelFits:
    """``level_fits`` ``within`` one domain from the values (``_fit_values``) of its rows."""
    assert view.bounds is not None
    top, index = within
    if whole:  # at most ``n`` whole pods per node, as ``level_fits_direct`` counts them
        np.minimum(per_row[:, -1], n, out=per_row[:, -1])
    # The domains inside, level after level (one index range each), summed from the level
    # below; then every domain of those levels, the others not fitting.
    spans = view.tree.descendant_spans(top, index, deepest)
    offsets = [0, *accumulate(last - first for first, last in spans)]
    sums = np.empty((offsets[-1], per_row.shape[1]), dtype=np.int64, order="F")
    below, at = per_row, view.bounds[deepest]
    for k in range(len(spans) - 1, -1, -1):
        first, last = spans[k]
        here = sums[offsets[k] : offsets[k + 1]]
        np.add.reduceat(below, at[first:last] - at[first], axis=0, out=here)
        below = here
        if k:  # the level above sums this one over its domains' children
            at = view.tree.child_start[top + k - 1]
    ratio, capacity, fits = _fit_of(sums, want, n, whole)
    # Whole levels, one after the other in one array of each kind.
    starts = [0, *accumulate(view.tree.count(level) for level in range(top, deepest + 1))]
    all_ratio = np.full(starts[-1], NOTHING_FREE)
    all_fits = np.zeros(starts[-1], dtype=np.bool_)
    all_capacity = None if capacity is None else np.zeros(starts[-1], dtype=np.int64)
    out: dict[int, LevelFit] = {}
    for k, (first, last) in enumerate(spans):
        mine, inside = slice(offsets[k], offsets[k + 1]), slice(starts[k] + first, starts[k] + last)
        all_ratio[inside] = ratio[mine]
        all_fits[inside] = fits[mine]
        if all_capacity is not None and capacity is not None:
            all_capacity[inside] = capacity[mine]
        level = slice(starts[k], starts[k + 1])
        out[top + k] = LevelFit(
            all_ratio[level], None if all_capacity is None else all_capacity[level], all_fits[level]
        )
    return LevelFits(out)


def _from_sums(
    space: NodeSpace,
    view: TopoView,
    pods: list[PodSpec],
    deepest: int,
    free: DomainSums,
    want: FloatArray,
    rep: tuple[tuple[str, int], ...] | None,
) -> LevelFits:
    """``level_fits`` from the sums ``free`` (of ``want``'s resources, then whole ``rep`` pods)."""
    n = len(pods)
    if rep is not None and free.exceeds(n):
        return level_fits_direct(space, view, pods, deepest)
    # Every level and every resource at once: the sums of the root and of levels 0..deepest
    # sit in one array, a column per resource, then whole pods for homogeneous pods.
    ratio, capacity, fits = _fit_of(free.flat(deepest), want, n, rep is not None)
    out: dict[int, LevelFit] = {}
    for level in range(-1, deepest + 1):
        at = slice(free.start(level), free.start(level + 1))
        out[level] = LevelFit(ratio[at], None if capacity is None else capacity[at], fits[at])
    return LevelFits(out)


def _fit_of(
    sums: IntArray, want: FloatArray, n: int, whole: bool
) -> tuple[FloatArray, IntArray | None, BoolArray]:
    """Ratio, capacity (``whole``: the last column holds whole pods) and fit of ``n`` pods that
    ask for ``want`` in all (``_demand``), for each row of ``sums`` (a domain each, a column per
    resource of ``want`` in its order)."""
    have = sums[:, : len(want)].T  # a row per resource (the sums are kept column by column)
    ratio = np.full(have.shape, NOTHING_FREE)
    np.divide(want, have, out=ratio, where=have > 0)
    ratio = ratio.max(axis=0, initial=0.0)
    capacity = sums[:, -1].copy() if whole else None
    fits = capacity >= n if capacity is not None else ratio <= 1.0
    return ratio, capacity, fits


# Memos kept by the session (gangs have few distinct pod kinds): ``_demand`` and ``_fit_columns``.
_DEMAND: Slot[tuple[dict[str, int], tuple[tuple[str, int], ...] | None, FloatArray]] = Slot("binpack demand")
_FIT_COLUMNS: Slot[tuple[tuple[str, ...], IntArray]] = Slot("binpack fit columns")


def _demand(
    kinds: tuple[tuple[Resources, int], ...],
) -> tuple[dict[str, int], tuple[tuple[str, int], ...] | None, FloatArray]:
    """What pods of ``kinds`` (``pod_kinds`` items) ask for in total, and when they are
    ``homogeneous`` the largest pod's non-zero requests, ``pods`` slot left out (else None);
    then the total again as a column (read-only) for ``_fit_of``."""
    counted = Counter(dict(kinds))
    rep = None
    if homogeneous(counted):
        rep = tuple(sorted((r, a) for r, a in representative(counted).items() if r != PODS and a > 0))
    total = summed(counted)
    want = np.asarray(list(total.values()), dtype=np.int64).astype(np.float64)[:, None]
    want.setflags(write=False)
    return total, rep, want


def _fit_values(
    space: NodeSpace, resources: tuple[str, ...], rep: tuple[tuple[str, int], ...] | None
) -> RowValues:
    """Per row, the free amount of each of ``resources`` (at least 0), a column each, then with
    ``rep`` ((resource, amount), not empty) the whole copies of that pod that fit."""
    wanted, amounts = space.caches.memo(_FIT_COLUMNS, (resources, rep), lambda: _fit_columns(resources, rep))
    ledger = space.ledger

    def of(rows: IntArray | slice) -> IntArray:
        at = [ledger.columns.get(r, -1) for r in wanted]  # read now: the ledger may add columns
        # A resource no node has: a column of zeros after the ledger's columns.
        free = take_rows(ledger.free, rows)
        if -1 in at:
            free = np.column_stack([free, np.zeros(len(free), dtype=np.int64)])
        # Clipped at 0 first: the whole pods of a row short of one resource are 0 either way.
        picked = np.maximum(free[:, at], 0)
        if rep is None:
            return picked
        # Column by column, as a gather along the columns gives: sums down a column run in C.
        out = np.empty((len(picked), len(resources) + 1), dtype=np.int64, order="F")
        out[:, :-1] = picked[:, : len(resources)]
        np.minimum.reduce(picked[:, len(resources) :] // amounts, axis=1, out=out[:, -1])
        return out

    return of


def _fit_columns(
    resources: tuple[str, ...], rep: tuple[tuple[str, int], ...] | None
) -> tuple[tuple[str, ...], IntArray]:
    """The resources ``_fit_values`` reads (``resources``, then ``rep``'s) and ``rep``'s
    amounts (read-only)."""
    amounts = np.asarray([a for _, a in rep or ()], dtype=np.int64)
    amounts.setflags(write=False)
    return (*resources, *(r for r, _ in rep or ())), amounts


def level_fits_direct(space: NodeSpace, view: TopoView, pods: list[PodSpec], deepest: int) -> LevelFits:
    """``level_fits`` computed from every member row (the readable reference)."""
    rows = np.flatnonzero(view.member)
    kinds = pod_kinds(pods)
    total = summed(kinds)
    n = len(pods)
    free = {r: np.maximum(space.ledger.column(r)[rows], 0) for r in total}
    per_row_cap: IntArray | None = None
    if homogeneous(kinds):
        rep = {r: a for r, a in representative(kinds).items() if r != PODS and a > 0}
        per_row_cap = np.full(len(rows), n, dtype=np.int64)
        for r, amount in rep.items():
            per_row_cap = np.minimum(per_row_cap, np.maximum(space.ledger.column(r)[rows], 0) // amount)
    out: dict[int, LevelFit] = {}
    for level in range(-1, deepest + 1):
        if level < 0:
            codes, size = np.zeros(len(rows), dtype=np.int64), 1
        else:
            codes, size = view.codes[level][rows], view.tree.count(level)
        ratio = np.zeros(size, dtype=np.float64)
        for r, want in total.items():
            have = np.bincount(codes, weights=free[r].astype(np.float64), minlength=size)
            part = np.where(have > 0, want / np.where(have > 0, have, 1.0), NOTHING_FREE)
            ratio = np.maximum(ratio, part)
        capacity: IntArray | None = None
        if per_row_cap is not None:
            capacity = np.bincount(codes, weights=per_row_cap, minlength=size).astype(np.int64)
            fits = capacity >= n
        else:
            fits = ratio <= 1.0
        out[level] = LevelFit(ratio, capacity, fits)
    return LevelFits(out)


def sorted_levels(
    view: TopoView, fits: dict[int, LevelFit], top: int, top_index: int, deepest: int
) -> dict[int, list[int]]:
    """Domains per level below the lowest common domain (``top``; -1 = root), in KAI's
    hierarchical order: children of earlier parents first, siblings fullest first, then by id."""
    tree = view.tree
    order: dict[int, list[int]] = {top: [top_index]}
    parents = np.asarray([top_index], dtype=np.int64)
    for level in range(top + 1, deepest + 1):
        # Parent position first (hierarchical order), then fullest first, then the dotted id.
        if level == 0 or len(parents) == 1:  # one parent: its children are one index range
            first, last = (0, tree.count(0)) if level == 0 else tree.children(level - 1, int(parents[0]))
            ranks = (tree.columns.dotted_rank(level)[first:last], -fits[level].ratio[first:last])
            parents = np.lexsort(ranks) + first
        else:
            starts, ends = tree.child_start[level - 1][parents], tree.child_end[level - 1][parents]
            kids = expand(starts, ends)
            rank = np.repeat(np.arange(len(parents), dtype=np.int64), ends - starts)
            parents = kids[
                np.lexsort((tree.columns.dotted_rank(level)[kids], -fits[level].ratio[kids], rank))
            ]
        order[level] = parents.tolist()
    return order


def topology_scores(view: TopoView, level: int, ordered: list[int], ratio: FloatArray) -> RowScores:
    """Per row, the positional score of its preferred-level domain (0 outside ``ordered``).

    ``ordered`` is KAI's sorted order (fullest first, ties by id ascending) and position i of N
    scores ``floor(10 * (i + 1) / N)``, so the least loaded sub-domain scores highest. On ties
    KAI scores the later id higher everywhere. The conformance cases pin that only among the
    least loaded sub-domains (lowest ratio), where the first pods go (``*-fallback``,
    ``*-concentrate``, ``kai-alloc-hier-*``); the seed pins the step after (rack A1, the least
    loaded, is full; the third pod goes to A2 of the tied A2-A4). So the least loaded keep KAI's
    positions and every other run of siblings with equal ratio scores the smaller id higher, as
    sort keys here do. Scores of domains with different ratios are KAI's.
    """
    by_domain = np.zeros(view.tree.count(level), dtype=np.int64)
    n = len(ordered)
    if n:
        domains = np.asarray(ordered, dtype=np.int64)
        parents = view.tree.parent[level][domains]
        ratios = ratio[domains]
        new_run = np.ones(n, dtype=np.bool_)
        new_run[1:] = (parents[1:] != parents[:-1]) | (ratios[1:] != ratios[:-1])
        starts = np.flatnonzero(new_run)
        ends = np.append(starts[1:], n)
        run = np.cumsum(new_run) - 1
        position = starts[run] + ends[run] - 1 - np.arange(n)  # reversed inside each run ...
        least = ratios == ratios.min()
        position[least] = np.flatnonzero(least)  # ... but among the least loaded (KAI)
        by_domain[domains] = (10 * (position + 1)) // n
    return RowScores(view.codes[level], by_domain, 0)


def pack_resource(pod: PodSpec) -> str:
    """The resource bin-packing compares: the GPU the pod asks for, else CPU."""
    return _pack_resource(pod.requests)


def _pack_resource(requests: Resources) -> str:
    for resource, amount in sorted(requests.items()):
        if amount > 0 and "gpu" in resource:
            return resource
    return CPU


def fill_nodes(
    space: NodeSpace,
    rows: IntArray,
    vec: IntArray,
    allowed: BoolArray,
    scores: IntArray | RowScores | None,
    pack: str,
    count: int,
) -> list[tuple[int, int]]:
    """``fill_rows`` as (row, pods) pairs."""
    at, takes = fill_rows(space, rows, vec, allowed, scores, pack, count)
    return list(zip(at.tolist(), takes.tolist(), strict=True))


def fill_rows(
    space: NodeSpace,
    rows: IntArray,
    vec: IntArray,
    allowed: BoolArray,
    scores: IntArray | RowScores | None,
    pack: str,
    count: int,
) -> tuple[IntArray, IntArray]:
    """Rows for ``count`` identical pods placed one at a time on the best row among ``rows``
    (distinct, ascending; fits and is allowed; highest topology score, then least free ``pack``
    resource, then node name), and the pods each takes, in fill order; fewer pods in total when
    room runs out.

    Charging a pod only lowers its row's free ``pack`` amount, so the row stays the best until
    it is full: one sort gives the order of all of them.
    """
    if len(rows) == 0 or count <= 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    # Distinct ascending rows: one row range when the last is as far from the first as their
    # count says (read as a view, not gathered).
    lo, hi = int(rows[0]), int(rows[-1]) + 1
    every = slice(lo, hi) if hi - lo == len(rows) else rows
    room = space.ledger.copies(every, vec)  # pods each row still takes
    ok = allowed[every] & (room > 0)
    rows, room = rows[ok], room[ok]
    topo = None if scores is None else -scores[rows]
    order = _best_first(topo, space.ledger.column(pack)[rows], space.name_rank[rows])
    reached = room[order].cumsum()
    used = min(int(reached.searchsorted(count)) + 1, len(order))
    best = order[:used]
    takes = room[best]
    if used and int(reached[used - 1]) > count:
        takes[-1] -= int(reached[used - 1]) - count  # the last row takes only what is left
    return rows[best], takes


def _best_first(first: IntArray | None, second: IntArray, rank: IntArray) -> IntArray:
    """The order of ``np.lexsort((rank, second, first))`` for distinct ``rank`` values (a total
    order, so any sort gives it; ``first`` None: left out, as if all equal): the keys folded into
    one when there are many rows (a few short keys sort faster than one folds them) and the
    folded key stays within int64."""
    keys = (rank, second) if first is None else (rank, second, first)
    if len(rank) >= _FOLD_FROM:
        lo2, size = int(second.min()), int(rank.max()) + 1
        span = (int(second.max()) - lo2 + 1) * size
        lo1 = 0 if first is None else int(first.min())
        if first is not None:
            span *= int(first.max()) - lo1 + 1
        if span < _FOLD_LIMIT:
            folded = (second - lo2) * size + rank
            if first is not None:
                folded += (first - lo1) * ((int(second.max()) - lo2 + 1) * size)
            by_key: IntArray = np.argsort(folded)
            return by_key
    order: IntArray = np.lexsort(keys)
    return order
