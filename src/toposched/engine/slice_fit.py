"""How much of a sliced group one domain holds when every slice layer is honoured together.

Kueue's refusal counts each layer on its own (the slices of that layer anywhere in the best
domain), so a layer can show more slices than the group asks for while a coarser layer fails:
"1/2 slice(s) fit on level block; 10/8 slice(s) fit on level rack" when ten racks are free but
no second block holds four of them. An explanation counts instead what one arrangement of the
whole group can take: slices of each layer grouped as the coarser layers group them (at most
``size_outer / size_inner`` in one domain of the coarser layer, and no more coarser groups than
the group has), each slice whole down to the finest layer. So no count exceeds what is asked,
the finest count in pods is what the domain can hold of the group, and the groups left short
name where the missing slices must go.

Counts come from the snapshot's per-level pod capacity: a domain holds ``pods // size`` whole
slices of the finest layer, and a coarser layer's slices are built from whole finer ones
(capacity that cannot form a whole finer slice is invisible upwards, as in Kueue's phase 1).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from toposched.model import LayerFit, ShortSlices, SliceLayer
from toposched.topology import IntArray, TopologyTree

Path = tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Piece:
    """One group of the arrangement: ``held`` of the ``full`` finest slices it needs, in
    ``domain`` (level index ``level``); ``parts`` the groups below it."""

    level: int
    domain: int
    held: int
    full: int
    parts: tuple[Piece, ...] = ()


@dataclass(frozen=True, slots=True)
class SliceFit:
    """What one domain holds of a sliced group: per layer (coarsest first) the slices one
    arrangement takes against those needed, the pods that makes (finest slices x their size)
    and the groups left short (empty when it all fits)."""

    layers: tuple[LayerFit, ...]
    pods: int
    short: tuple[ShortSlices, ...]


def slice_fit(
    tree: TopologyTree,
    capacity: Sequence[IntArray],
    layers: Sequence[SliceLayer],
    count: int,
    level: int,
    domain: int,
) -> SliceFit | None:
    """The slice fit of ``count`` pods cut into ``layers`` in ``domain`` of ``level``, from
    ``capacity`` (pods per domain, per level: ``Snapshot.level_capacity``); None when a layer's
    level is not in the tree or lies above ``level``, or a size does not divide the one above it."""
    levels = [tree.level_index(layer.level) for layer in layers]
    if not layers or any(lvl is None or lvl < level for lvl in levels):
        return None
    if any(layer.size < 1 for layer in layers) or any(
        outer % inner
        for outer, inner in zip((count, *(x.size for x in layers)), (x.size for x in layers), strict=False)
    ):
        return None  # a request the solver rejects as invalid: its reason says why
    at = [int(lvl) for lvl in levels if lvl is not None]
    sizes = [layer.size for layer in layers]
    whole = _whole_slices(tree, capacity, at, sizes)
    fits: list[LayerFit] = []
    short: tuple[ShortSlices, ...] = ()
    for j, layer in enumerate(layers):
        top = _arrange(tree, whole[j], [level, *at[:j]], [count, *sizes[:j]], sizes[j], at[j], domain)
        fits.append(LayerFit(layer.level, top.held, count // sizes[j]))
        if j == len(layers) - 1:
            short = tuple(
                ShortSlices(tree.path(p.level, p.domain), p.held, p.full) for p in _short_groups(top)
            )
    return SliceFit(tuple(fits), fits[-1].fit * sizes[-1], short)


def _whole_slices(
    tree: TopologyTree, capacity: Sequence[IntArray], at: Sequence[int], sizes: Sequence[int]
) -> list[IntArray]:
    """Per layer, whole slices per domain of its level, each made of whole finer slices."""
    out: list[IntArray] = [capacity[at[-1]] // sizes[-1]]
    for j in range(len(at) - 2, -1, -1):
        pods = _roll_up(tree, out[0] * sizes[j + 1], at[j + 1], at[j])
        out.insert(0, np.minimum(pods, capacity[at[j]]) // sizes[j])
    return out


def _roll_up(tree: TopologyTree, values: IntArray, below: int, level: int) -> IntArray:
    """``values`` of the domains of level ``below`` summed per domain of ``level``."""
    for lvl in range(below - 1, level - 1, -1):
        if len(values) == 0:
            return np.zeros(tree.count(lvl), dtype=np.int64)
        values = np.add.reduceat(values, tree.child_start[lvl])
    return values


def _arrange(
    tree: TopologyTree,
    whole: IntArray,
    group_levels: Sequence[int],
    group_sizes: Sequence[int],
    size: int,
    level: int,
    domain: int,
) -> Piece:
    """The best arrangement in ``domain`` (of ``group_levels[0]``) of slices of ``size`` pods
    (``whole`` per domain of ``level``) grouped by the coarser layers (``group_levels`` /
    ``group_sizes``, coarsest first, the group itself first): the top group as a ``Piece``.

    Bottom-up over the grouping levels: a domain of the finest grouping level offers its slices
    in groups of ``group_size / size`` (full ones, then the rest); a coarser domain takes its
    children's groups, largest first, in groups of as many as its layer holds. Taking the largest
    first is best for every number of groups at once, so the top group is the best one."""
    first, last = tree.descendants(group_levels[0], domain, group_levels[-1])
    finest = group_levels[-1]
    per = group_sizes[-1] // size
    limit = group_sizes[0] // group_sizes[-1]  # more groups than the whole needs are never taken
    pieces: dict[int, list[Piece]] = {}
    for e in range(first, last):
        lo, hi = tree.descendants(finest, e, level)
        held = int(whole[lo:hi].sum())
        groups = [Piece(finest, e, per, per)] * min(held // per, limit)
        if held % per and len(groups) < limit:
            groups.append(Piece(finest, e, held % per, per))
        pieces[e] = groups
    for depth in range(len(group_levels) - 2, -1, -1):
        lvl = group_levels[depth]
        ratio = group_sizes[depth] // group_sizes[depth + 1]
        full = group_sizes[depth] // size
        lo, hi = tree.descendants(group_levels[0], domain, lvl)
        merged: dict[int, list[Piece]] = {}
        for d in range(lo, hi):
            c0, c1 = tree.descendants(lvl, d, group_levels[depth + 1])
            items = sorted(
                (p for c in range(c0, c1) for p in pieces.get(c, ())), key=lambda p: (-p.held, p.domain)
            )
            cap = group_sizes[0] // group_sizes[depth]
            merged[d] = [
                Piece(lvl, d, sum(p.held for p in chunk), full, tuple(chunk))
                for chunk in (items[i : i + ratio] for i in range(0, len(items), ratio))
            ][:cap]
        pieces = merged
    top = pieces.get(domain) or [Piece(group_levels[0], domain, 0, group_sizes[0] // size)]
    return top[0]


def _short_groups(top: Piece) -> list[Piece]:
    """The groups of the arrangement that lack slices themselves, deepest first: a group of the
    finest grouping level short of slices, or a coarser one short of whole groups below it."""
    out: list[Piece] = []
    for part in top.parts:
        out += _short_groups(part)
    lacks = len(top.parts) < top.full // top.parts[0].full if top.parts else top.held < top.full
    if lacks:
        out.append(top)
    return out
