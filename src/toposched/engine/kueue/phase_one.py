"""Phase 1 of a Kueue request (how many pods fit per node and per domain), kept per snapshot.

Phase 1 reads only the free capacity and the request's shape and slice layout, so on an
unchanged snapshot every request of the same kind gets the same numbers: the first request of
a gang (nothing charged yet) finds them in ``PhaseOneCache`` when a placement before it made
them on the same snapshot. After a change to the snapshot (a commit) the per-node numbers are
recomputed on the rows it changed only (``Snapshot.changed_rows``), and kept as they were when
no row changed. The first placement that reads new per-node numbers writes into counts of its
own and keeps none (keeping them costs about what summing them does); the next one keeps the
counts too, shared read-only (``SharedCounts``: phase 2 writes into copies of the part it
descends into), and so do later versions while no row changes.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass, replace
from typing import Any, TypeVar

import numpy as np

from toposched.engine.core.caches import EngineCaches, Slot
from toposched.engine.core.counts import LevelCounts, SharedCounts, fill_counts
from toposched.engine.core.ledger import Ledger
from toposched.engine.core.request import Request
from toposched.engine.core.rowwise import take_rows
from toposched.snapshot import BoolArray, Snapshot, eligible, fits_count
from toposched.topology import IntArray, TopologyTree

_KEPT = 4  # request kinds kept per snapshot (about 5 MB each at 100k nodes)

Shared = TypeVar("Shared", bound=np.ndarray[Any, Any])


@dataclass(frozen=True, slots=True, eq=False)
class PhaseOne:
    """Per node: pods that fit (``raw``: eligible nodes only; ``node_pods``: also inside the
    allowed leaves), whether the leader fits and pods that fit beside it; per level: counts."""

    raw: IntArray
    node_pods: IntArray
    leader_fits: BoolArray | None
    with_leader: IntArray | None
    counts: list[LevelCounts]


def phase_one(
    tree: TopologyTree, ledger: Ledger, req: Request, allowed_leaves: BoolArray | None = None
) -> PhaseOne:
    """Phase 1 of ``req`` on the ledger's free capacity (rows in ``tree``'s node order)."""
    inside = None if allowed_leaves is None else allowed_leaves[tree.node_domain[-1]]
    nodes = node_numbers(tree, ledger, req, slice(None), inside)
    return replace(nodes, counts=level_counts(tree, req, nodes))


def node_numbers(
    tree: TopologyTree, ledger: Ledger, req: Request, rows: IntArray | slice, inside: BoolArray | None = None
) -> PhaseOne:
    """The per-node numbers of phase 1 (counts left out) for the nodes ``rows`` only;
    ``inside``: per node of ``rows``, whether it lies in the allowed leaves."""
    columns = ledger.columns
    mask = eligible(tree, req.shape)
    if mask is not None:
        mask = mask[rows]
    raw = fits_count(take_rows(ledger.free, rows), columns, req.shape.requests)
    if mask is not None:
        raw = np.where(mask, raw, 0)
    node_pods = raw
    node_ok: BoolArray | None = mask
    if inside is not None:
        node_pods = np.where(inside, raw, 0)
        node_ok = inside if node_ok is None else node_ok & inside
    leader_fits: BoolArray | None = None
    with_leader: IntArray | None = None
    if req.leader_requests is not None:
        vec = ledger.vector(req.leader_requests)  # may add a column to the ledger's matrix
        free = take_rows(ledger.free, rows)
        leader_fits = fits_count(free, columns, req.leader_requests) >= 1
        if node_ok is not None:
            leader_fits &= node_ok
        with_leader = fits_count(free - vec[None, :], columns, req.shape.requests)
        if node_ok is not None:
            with_leader = np.where(node_ok, with_leader, 0)
    return PhaseOne(raw, node_pods, leader_fits, with_leader, [])


def level_counts(tree: TopologyTree, req: Request, nodes: PhaseOne) -> list[LevelCounts]:
    """The per-level counts of phase 1 from its per-node numbers."""
    return fill_counts(
        tree,
        nodes.node_pods,
        slice_level=req.slice_level,
        slice_size=req.slice_size,
        inner_sizes=req.inner_sizes,
        leader_fits=nodes.leader_fits,
        node_pods_with_leader=nodes.with_leader,
    )


@dataclass(frozen=True, slots=True, eq=False)
class _Kept:
    """One request kind's phase 1 on one snapshot version: per-node numbers (counts left out,
    read-only) and, once asked for again, the counts."""

    version: int
    nodes: PhaseOne
    counts: SharedCounts | None = None


class PhaseOneCache:
    """Phase-1 results made on a snapshot, by request kind, seen at its current version
    (``for_snapshot``). A kind made on an earlier version is updated on the rows changed since
    (``Snapshot.changed_rows``) rather than made afresh."""

    def __init__(self, snapshot: Snapshot, found: dict[Hashable, _Kept]) -> None:
        self._snapshot = snapshot
        self._found = found  # shared by every placement on the snapshot

    def solve(
        self, tree: TopologyTree, ledger: Ledger, req: Request
    ) -> tuple[PhaseOne, list[LevelCounts], SharedCounts | None]:
        """Phase 1 of ``req`` on the snapshot's own capacity (``ledger`` charged nothing yet):
        the per-node numbers and the counts, either the placement's own or, with the third item,
        shared ones (read-only; phase 2 writes into ``SharedCounts.below``)."""
        key = (
            req.shape,
            req.leader_requests,
            req.slice_level,
            req.slice_size,
            tuple(req.inner_sizes.items()),
        )
        version = self._snapshot.version
        found = self._found.get(key)
        before = None if found is None else found.nodes
        if found is not None and found.version != version:
            found = _updated(tree, ledger, req, found, self._snapshot.changed_rows(found.version), version)
        nodes = _frozen(node_numbers(tree, ledger, req, slice(None))) if found is None else found.nodes
        if found is not None and found.counts is not None:
            self._found[key] = found
            return nodes, found.counts.levels, found.counts
        counts = level_counts(tree, req, nodes)
        if nodes is not before:  # numbers new to this placement: phase 2 writes into its own counts
            self._keep(key, _Kept(version, nodes))
            return nodes, counts, None
        shared = SharedCounts(counts)  # the same numbers asked for again: keep the counts too
        self._keep(key, _Kept(version, nodes, shared))
        return nodes, shared.levels, shared

    def _keep(self, key: Hashable, kept: _Kept) -> None:
        found = self._found
        found.pop(key, None)
        if len(found) >= _KEPT:
            found.pop(next(iter(found)), None)  # the oldest
        found[key] = kept


def _frozen(nodes: PhaseOne) -> PhaseOne:
    """``nodes`` with its arrays made read-only: they are shared by later placements."""
    for shared in (nodes.raw, nodes.node_pods, nodes.leader_fits, nodes.with_leader):
        if shared is not None:
            shared.setflags(write=False)
    return nodes


_PATCH_SHARE = 4  # update the rows changed when they are fewer than one in this many, else remake


def _updated(
    tree: TopologyTree, ledger: Ledger, req: Request, kept: _Kept, rows: IntArray | None, version: int
) -> _Kept | None:
    """``kept`` brought to ``version``, the rows changed since its own being ``rows``; None
    when it is better made afresh (the changes are unknown or many). Counts are kept only when
    no row changed."""
    if rows is None or len(rows) * _PATCH_SHARE > tree.node_count:
        return None
    if len(rows) == 0:
        return _Kept(version, kept.nodes, kept.counts)
    now, was = node_numbers(tree, ledger, req, rows), kept.nodes
    raw = _patched(was.raw, rows, now.raw)
    assert raw is not None
    leader_fits = _patched(was.leader_fits, rows, now.leader_fits)
    with_leader = _patched(was.with_leader, rows, now.with_leader)
    return _Kept(version, _frozen(PhaseOne(raw, raw, leader_fits, with_leader, [])))


def _patched(old: Shared | None, rows: IntArray, new: Shared | None) -> Shared | None:
    """A copy of ``old`` with ``new`` at ``rows``."""
    if old is None or new is None:
        return None
    out = old.copy()
    out[rows] = new
    return out


# Per snapshot: what its placements made, by request kind (no reference to the snapshot).
_KEPT_BY_KIND: Slot[dict[Hashable, _Kept]] = Slot("phase one by request kind")


def for_snapshot(snapshot: Snapshot, caches: EngineCaches) -> PhaseOneCache:
    """The phase-1 results ``caches`` keep for ``snapshot``, seen at its current version."""
    return PhaseOneCache(snapshot, caches.per_snapshot(snapshot, _KEPT_BY_KIND, dict))
