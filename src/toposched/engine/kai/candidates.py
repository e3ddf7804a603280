"""Candidate node sets for one group of the tree, in the order KAI tries them.

For a group with constraint C and the attempt's pods P inside the node set N handed down by its
parent:

1. no constraint: one candidate, N. A Topology that does not exist, a topology name without any
   level, or an unknown level: no candidate (the gang stays pending).
2. valid nodes = N inside the Topology; the lowest common domain (LCD) is found walking down
   while they share a value, no deeper than the deepest level C names. Domains outside the LCD's
   subtree count as empty; a domain's free capacity includes all its nodes, even those outside N.
3. the LCD must fit P, else "not enough resources".
4. relevant levels: from the preferred level (if any) up to the required level, or up to the
   root without one. Candidates are the fitting domains of those levels, deepest level first,
   in the binpack order (under a Kueue policy: tightest first). With a required level, pods of
   the group that already run or were placed pin it: only domains inside their required-level
   domain(s) are candidates.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from itertools import chain, compress

import numpy as np

from toposched.engine.core.members import GroupNode
from toposched.engine.core.messages import Reasons
from toposched.engine.core.space import NodeSpace, RowScores, TopoView
from toposched.engine.core.strategy import Strategy
from toposched.engine.kai.binpack import LevelFit, level_fits
from toposched.model import PodSpec, Unschedulable
from toposched.snapshot import BoolArray
from toposched.topology import IntArray


@dataclass(frozen=True, slots=True)
class Candidates:
    sets: Iterator[IntArray]  # made lazily, in the order to try them
    # When the group prefers a level, per row: binpack's topology score, or under a Kueue
    # ordering the dotted-id rank of the row's preferred-level domain (-1 outside).
    scores: RowScores | None


def candidates(
    space: NodeSpace,
    node: GroupNode,
    pods: list[PodSpec],
    rows: IntArray,
    held: IntArray,
    reasons: Reasons,
    strategy: Strategy | None = None,
) -> Candidates | Unschedulable:
    """The node sets to try for ``node`` (``held``: rows already holding pods of its subtree).

    ``strategy`` None orders domains the binpack way; a Kueue ordering (BestFit,
    LeastFreeCapacity) takes the same fitting domains of each level tightest first (the fewest
    pods that still hold the group, as both pick for a request that must fit one domain), ties
    by id, and ``scores`` then holds each row's preferred-level domain rank for the fill.
    """
    if not node.constrained:
        return Candidates(iter((rows,)), None)
    name = node.topology if node.topology is not None else space.default
    view = space.views.get(name)
    if view is None:
        return reasons.refuse(f"Requested topology {name} does not exist", topology=name, group=node.name)
    if node.required is None and node.preferred is None:
        return reasons.refuse(
            f"no topology constraints were found for {node.name}: topology {name} is named without "
            "a required or preferred level",
            topology=name,
            group=node.name,
        )
    levels: dict[str, int] = {}
    for wanted in (node.required, node.preferred):
        if wanted is None:
            continue
        index = view.tree.level_index(wanted)
        if index is None:
            return reasons.refuse(
                f"the topology {name} does not contain a level with this name: {wanted}",
                topology=name,
                group=node.name,
                level=wanted,
            )
        levels[wanted] = index
    req = levels.get(node.required) if node.required is not None else None
    pref = levels.get(node.preferred) if node.preferred is not None else None
    if pref is not None and req is not None and pref < req:
        pref = None  # a preferred level above the required one adds nothing
    if not pods:
        return Candidates(iter((rows,)), None)
    deepest = pref if pref is not None else req
    assert deepest is not None
    valid = _members(view, rows)
    top, top_index = _lowest_common(view, valid, deepest)
    within = (top, top_index) if _inside(view, top, top_index, req, held) else None
    fits = level_fits(space, view, pods, deepest, same_shape=node.same_shape, within=within)
    here = fits[top]
    if not here.fits[top_index]:
        where = "the cluster" if top < 0 else view.domain_id(top, top_index)
        cap = None if here.capacity is None else int(here.capacity[top_index])
        return reasons.refuse(
            f"not enough resources in {where} to allocate the job",
            topology=name,
            group=node.name,
            level=None if top < 0 else view.topology.levels[top],
            best_domain=None if top < 0 else view.tree.path(top, top_index),
            fit=cap,
            needed=len(pods),
        )
    order = fits.ordered(view, top, top_index, deepest)
    scores = None
    if strategy is not None:
        order = {
            level: _tightest_first(view, fits[level], domains, len(pods), level)
            for level, domains in order.items()
        }
    if pref is not None:
        ordered = order[pref] if pref > top else []
        if ordered and strategy is None:
            scores = fits.scored(view, top, top_index, deepest, pref)
        elif ordered:
            scores = _domain_ranks(view, pref, ordered)
    relevant = list(range(deepest, (req if req is not None else -1) - 1, -1))
    allowed: set[int] | None = None
    if req is not None and len(held):
        codes = view.codes[req][held]
        allowed = {int(c) for c in codes if c >= 0} or None
    sets = _sets(view, valid, fits, order, relevant, top, top_index, req, allowed)
    first = next(sets, None)
    if first is None:
        if allowed is not None and req is not None:
            return _pinned_full(view, node, fits[req], sorted(allowed), len(pods), name, reasons)
        return _none_fits(view, node, fits, order, deepest, len(pods), name, reasons)
    return Candidates(chain((first,), sets), scores)


def _sets(
    view: TopoView,
    valid: IntArray,
    fits: dict[int, LevelFit],
    order: dict[int, list[int]],
    relevant: list[int],
    top: int,
    top_index: int,
    req: int | None,
    allowed: set[int] | None,
) -> Iterator[IntArray]:
    """The rows of each fitting domain of the relevant levels, in order, each distinct set once;
    made as the solver asks (it usually takes the first)."""
    seen: set[tuple[int, int]] = set()
    for level in relevant:
        domains = order[level] if level >= top else [_ancestor(view, top, top_index, level)]
        members = _members_by_domain(view, valid, level)
        for domain in _fitting(domains, fits[level].fits):
            if allowed is not None and req is not None and _ancestor(view, level, domain, req) not in allowed:
                continue
            chosen = members(domain)
            # Domains nest or are disjoint, so their rows do too: the first row and the count
            # tell two non-empty sets apart.
            fingerprint = (int(chosen[0]), len(chosen)) if len(chosen) else (-1, 0)
            if len(chosen) and fingerprint not in seen:
                seen.add(fingerprint)
                yield chosen


def _fitting(domains: list[int], fits: BoolArray) -> Iterator[int]:
    """The domains that fit, in order: looked up a chunk at a time, each chunk four times the
    one before, since the solver usually takes the first that fits and a big level where most
    do not would cost a step per domain."""
    start, size = 0, 8
    while start < len(domains):
        chunk = domains[start : start + size]
        yield from compress(chunk, fits[np.asarray(chunk, dtype=np.int64)].tolist())
        start, size = start + size, size * 4


def _tightest_first(view: TopoView, fit: LevelFit, domains: list[int], n: int, level: int) -> list[int]:
    """``domains`` by room ascending (whole pods, else pods' worth of the dominant resource),
    then dotted id."""
    if len(domains) < 2:
        return domains
    index = np.asarray(domains, dtype=np.int64)
    if fit.capacity is not None:
        room = fit.capacity[index].astype(np.float64)
    else:
        ratio = fit.ratio[index]
        room = np.where(ratio > 0, n / np.where(ratio > 0, ratio, 1.0), np.inf)
    ids = view.tree.columns.dotted_rank(level)[index] if level >= 0 else np.zeros(len(index), dtype=np.int64)
    ordered: list[int] = index[np.lexsort((ids, room))].tolist()
    return ordered


def _domain_ranks(view: TopoView, level: int, ordered: list[int]) -> RowScores:
    """Per row, the dotted-id rank of its ``level`` domain when that domain is in ``ordered``."""
    inside = np.zeros(view.tree.count(level), dtype=np.bool_)
    inside[np.asarray(ordered, dtype=np.int64)] = True
    return RowScores(view.codes[level], np.where(inside, view.tree.columns.dotted_rank(level), -1), -1)


def _members_by_domain(view: TopoView, valid: IntArray, level: int) -> Callable[[int], IntArray]:
    """A lookup from a domain of ``level`` to the rows of ``valid`` (ascending) inside it: a
    slice when the view's domains are row ranges, else grouped once so that trying many domains
    does not scan every row per domain."""
    if level < 0:
        return lambda _domain: valid
    if view.bounds is not None:
        bounds = view.bounds[level]

        def in_range(domain: int) -> IntArray:
            lo, hi = valid.searchsorted(bounds[domain : domain + 2]).tolist()
            return valid[lo:hi]

        return in_range
    codes = view.codes[level][valid]
    order = np.argsort(codes, kind="stable")  # stable: rows stay ascending within a domain
    grouped = valid[order]
    bounds = np.searchsorted(codes[order], np.arange(view.tree.count(level) + 1)).tolist()

    def members(domain: int) -> IntArray:
        return grouped[bounds[domain] : bounds[domain + 1]]

    return members


def _members(view: TopoView, rows: IntArray) -> IntArray:
    """The rows (ascending) of the view's member nodes."""
    if view.bounds is not None:  # the members are the first rows
        end = int(view.bounds[0][-1])
        return rows if not len(rows) or rows[-1] < end else rows[: int(rows.searchsorted(end))]
    return rows[view.member[rows]]


def _lowest_common(view: TopoView, valid: IntArray, deepest: int) -> tuple[int, int]:
    top, index = -1, 0
    if view.bounds is not None and len(valid):
        # With row-range domains, ascending rows have ascending domains: the two ends decide.
        first, last = int(valid[0]), int(valid[-1])
        for level in range(deepest + 1):
            codes = view.codes[level]
            if codes[first] != codes[last]:
                break
            top, index = level, int(codes[first])
        return top, index
    ends = valid
    for level in range(deepest + 1):
        values = view.codes[level][ends]
        if len(values) == 0 or np.any(values != values[0]):
            break
        top, index = level, int(values[0])
    return top, index


def _inside(view: TopoView, top: int, index: int, req: int | None, held: IntArray) -> bool:
    """Whether every fit the candidates read lies inside the lowest common domain (``top``,
    ``index``), so that its rows alone give them: the levels from it down (the required level
    is one of them) and the domains of rows already holding the group's pods (ascending)."""
    if top < 0 or view.bounds is None or req is None or req < top:
        return False
    if not len(held):
        return True
    lo, hi = view.bounds[top][index : index + 2].tolist()
    return bool(lo <= held[0] and held[-1] < hi)


def _ancestor(view: TopoView, level: int, index: int, target: int) -> int:
    """The domain at ``target`` (<= level) holding a domain; the root is -1 / 0."""
    if target < 0:
        return 0
    return view.tree.ancestor(level, index, target)


def _pinned_full(
    view: TopoView,
    node: GroupNode,
    fit: LevelFit,
    pinned: list[int],
    needed: int,
    name: str,
    reasons: Reasons,
) -> Unschedulable:
    """No room left where the group's pods already are (its required-level domain(s))."""
    level = view.tree.level_index(node.required or "")
    assert level is not None  # pinned domains exist only for a known required level
    key = view.topology.levels[level]
    best = max(pinned, key=lambda d: (-1 if fit.capacity is None else int(fit.capacity[d]), -d))
    got = None if fit.capacity is None else int(fit.capacity[best])
    if fit.fits[best]:  # room enough, but none of its nodes is in the set the parent chose
        room = "no node in the domain chosen for the group's parent"
    elif got is None:
        room = f"not enough room for the {needed} pods to add"
    else:
        room = f"room for only {got} of the {needed} pods to add"
    return reasons.refuse(
        f"topology constraint {key} of {node.name} couldn't be satisfied: pods of {node.name} "
        f"already run in {key} domain {view.domain_id(level, best)}, which has {room}",
        topology=name,
        group=node.name,
        level=key,
        best_domain=view.tree.path(level, best),
        fit=got,
        needed=needed,
    )


def _none_fits(
    view: TopoView,
    node: GroupNode,
    fits: dict[int, LevelFit],
    order: dict[int, list[int]],
    level: int,
    needed: int,
    name: str,
    reasons: Reasons,
) -> Unschedulable:
    key = view.topology.levels[level]
    # Domains that fit but gave no candidate have no node in the parent's set: not "the best".
    domains = [d for d in order.get(level, []) if not fits[level].fits[d]]
    capacity = fits[level].capacity
    best: int | None = None
    if capacity is not None and domains:
        best = max(domains, key=lambda d: (int(capacity[d]), -d))
    if best is None:
        return reasons.refuse(
            f"topology constraint {key} of {node.name} couldn't be satisfied: no {key} domain "
            f"can hold the {needed} pods",
            topology=name,
            group=node.name,
            level=key,
            needed=needed,
        )
    assert capacity is not None  # best is only set with capacities
    got = int(capacity[best])
    return reasons.refuse(
        f"topology constraint {key} of {node.name} couldn't be satisfied: the best {key} domain "
        f"{view.domain_id(level, best)} can allocate only {got} of {needed} required pods",
        topology=name,
        group=node.name,
        level=key,
        best_domain=view.tree.path(level, best),
        fit=got,
        needed=needed,
    )
