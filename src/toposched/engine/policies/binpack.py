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
from functools import lru_cache
from operator import attrgetter

import numpy as np
import numpy.typing as npt

from toposched.engine.domain_sums import DomainSums, RowValues
from toposched.engine.ledger import Ledger
from toposched.engine.ranges import expand
from toposched.engine.space import NodeSpace, RowScores, TopoView
from toposched.model import CPU, MEMORY, PODS, PodSpec, Resources
from toposched.snapshot import BoolArray
from toposched.topology import IntArray

FloatArray = npt.NDArray[np.float64]
NOTHING_FREE = 1000.0  # KAI's ratio for a requested resource with no free amount
_BASIC = {CPU, MEMORY, PODS, "ephemeral-storage"}
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
    (``ordered``): the fits of unchanged sums are reused, and their orders with them."""

    def __init__(self, fits: dict[int, LevelFit]) -> None:
        super().__init__(fits)
        self._orders: dict[tuple[int, int, int], dict[int, list[int]]] = {}

    def ordered(self, view: TopoView, top: int, top_index: int, deepest: int) -> dict[int, list[int]]:
        """``sorted_levels`` for these fits (made once per arguments; read-only)."""
        key = (top, top_index, deepest)
        found = self._orders.get(key)
        if found is None:
            found = self._orders[key] = sorted_levels(view, self, top, top_index, deepest)
        return found


def level_fits(
    space: NodeSpace, view: TopoView, pods: list[PodSpec], deepest: int, *, same_shape: bool = False
) -> LevelFits:
    """``LevelFit`` for the root (key -1) and levels 0..``deepest``, over every member node of the
    topology (nodes outside the caller's node set count too, as in KAI).

    From the space's per-domain sums, which a placement computes once and keeps current (see
    ``level_fits_direct`` for the same from every row); made once per state of those sums and
    pods' demand. Whole-pod capacities count at most ``len(pods)`` per node: when a node holds
    more, the direct computation answers. ``same_shape``: as for ``pod_kinds``."""
    kinds = tuple(pod_kinds(pods, same_shape=same_shape).items())
    total, rep = _demand(kinds)
    if rep is not None and not rep:
        return level_fits_direct(space, view, pods, deepest)
    resources = tuple(total)
    free = space.sums(view, ("fit", resources, rep), _fit_values(space.ledger, resources, rep))
    return free.derived(
        ("fits", kinds, deepest), lambda: _from_sums(space, view, pods, deepest, free, total, rep)
    )


def _from_sums(
    space: NodeSpace,
    view: TopoView,
    pods: list[PodSpec],
    deepest: int,
    free: DomainSums,
    total: dict[str, int],
    rep: tuple[tuple[str, int], ...] | None,
) -> LevelFits:
    """``level_fits`` from the sums ``free`` (of ``total``'s resources, then whole ``rep`` pods)."""
    n = len(pods)
    if rep is not None and free.exceeds(n):
        return level_fits_direct(space, view, pods, deepest)
    # Every level and every resource at once: the sums of the root and of levels 0..deepest
    # sit in one array, a column per resource, then whole pods for homogeneous pods.
    resources = tuple(total)
    sums = free.flat(deepest)
    have = sums[:, : len(resources)].T  # a row per resource (the sums are kept column by column)
    want = np.asarray([total[r] for r in resources], dtype=np.int64)[:, None]
    ratio = np.maximum.reduce(
        np.where(have > 0, want / np.maximum(have, 1), NOTHING_FREE), axis=0, initial=0.0
    )
    capacity = sums[:, -1].copy() if rep is not None else None
    fits = capacity >= n if capacity is not None else ratio <= 1.0
    out: dict[int, LevelFit] = {}
    for level in range(-1, deepest + 1):
        at = slice(free.start(level), free.start(level + 1))
        out[level] = LevelFit(ratio[at], None if capacity is None else capacity[at], fits[at])
    return LevelFits(out)


@lru_cache(maxsize=256)  # gangs have few distinct pod kinds
def _demand(
    kinds: tuple[tuple[Resources, int], ...],
) -> tuple[dict[str, int], tuple[tuple[str, int], ...] | None]:
    """What pods of ``kinds`` (``pod_kinds`` items) ask for in total, and when they are
    ``homogeneous`` the largest pod's non-zero requests, ``pods`` slot left out (else None)."""
    counted = Counter(dict(kinds))
    rep = None
    if homogeneous(counted):
        rep = tuple(sorted((r, a) for r, a in representative(counted).items() if r != PODS and a > 0))
    return summed(counted), rep


def _fit_values(
    ledger: Ledger, resources: tuple[str, ...], rep: tuple[tuple[str, int], ...] | None
) -> RowValues:
    """Per row, the free amount of each of ``resources`` (at least 0), a column each, then with
    ``rep`` ((resource, amount), not empty) the whole copies of that pod that fit."""

    def of(rows: IntArray | slice) -> IntArray:
        wanted = (*resources, *(r for r, _ in rep or ()))
        at = [ledger.columns.get(r, -1) for r in wanted]
        # A resource no node has: a column of zeros after the ledger's columns.
        free = ledger.free[rows]
        if -1 in at:
            free = np.column_stack([free, np.zeros(len(free), dtype=np.int64)])
        picked = free[:, at]
        out = np.maximum(picked[:, : len(resources)], 0)
        if rep is None:
            return out
        amounts = np.asarray([a for _, a in rep], dtype=np.int64)
        # A negative free amount makes its quotient negative: clipping the least one at 0
        # gives what clipping each amount first would.
        whole = np.maximum((picked[:, len(resources) :] // amounts).min(axis=1), 0)
        return np.column_stack([out, whole])

    return of


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
        if level == 0:
            kids = np.arange(tree.count(0), dtype=np.int64)
            rank = np.zeros(len(kids), dtype=np.int64)
        else:
            starts, ends = tree.child_start[level - 1][parents], tree.child_end[level - 1][parents]
            kids = expand(starts, ends)
            rank = np.repeat(np.arange(len(parents), dtype=np.int64), ends - starts)
        # Parent position first (hierarchical order), then fullest first, then the dotted id.
        parents = kids[np.lexsort((tree.dotted_rank(level)[kids], -fits[level].ratio[kids], rank))]
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


@lru_cache(maxsize=256)  # a cluster's pods have few distinct request maps
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
    wanted = np.flatnonzero(vec > 0)
    every = slice(None) if len(rows) == space.size else rows  # distinct ascending rows: all of them
    room = np.min(space.ledger.free[every][:, wanted] // vec[wanted], axis=1)  # pods each row still takes
    ok = allowed[every] & (room > 0)
    rows, room = rows[ok], room[ok]
    topo = scores[rows] if scores is not None else np.zeros(len(rows), dtype=np.int64)
    order = _best_first(-topo, space.ledger.column(pack)[rows], space.name_rank[rows])
    reached = np.cumsum(room[order])
    used = min(int(np.searchsorted(reached, count, side="left")) + 1, len(order))
    takes = room[order[:used]].copy()
    if used and int(reached[used - 1]) > count:
        takes[-1] -= int(reached[used - 1]) - count  # the last row takes only what is left
    return rows[order[:used]], takes


def _best_first(first: IntArray, second: IntArray, rank: IntArray) -> IntArray:
    """The order of ``np.lexsort((rank, second, first))`` for distinct ``rank`` values (a total
    order, so any sort gives it): the three keys folded into one when there are many rows (three
    short keys sort faster than one folds them) and the folded key stays within int64."""
    if len(rank) >= _FOLD_FROM:
        lo1, lo2 = int(first.min()), int(second.min())
        span1, span2 = int(first.max()) - lo1 + 1, int(second.max()) - lo2 + 1
        size = int(rank.max()) + 1
        if span1 * span2 * size < _FOLD_LIMIT:
            folded: IntArray = np.argsort(((first - lo1) * span2 + (second - lo2)) * size + rank)
            return folded
    order: IntArray = np.lexsort((rank, second, first))
    return order
