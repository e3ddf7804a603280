"""Phase 1 of a Kueue request (how many pods fit per node and per domain), kept per snapshot.

Phase 1 reads only the free capacity and the request's shape and slice layout, so on an
unchanged snapshot every request of the same kind gets the same numbers: the first request of
a gang (nothing charged yet) finds them in ``KeptPhaseOne`` when a placement before it made
them on the same snapshot version. Phase 2 writes into its counts, so it gets copies; the
first placement of a kind keeps only the per-node numbers (copying every level's counts costs
about what summing them does), and the second keeps the counts too.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass, replace
from weakref import WeakKeyDictionary

import numpy as np

from toposched.engine.counts import LevelCounts, fill_counts
from toposched.engine.ledger import Ledger
from toposched.engine.request import Request
from toposched.snapshot import BoolArray, Snapshot, eligible, fits_count
from toposched.topology import IntArray, TopologyTree

_KEPT = 4  # request kinds kept per snapshot version (about 5 MB each at 100k nodes)


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
    columns = ledger.columns
    mask = eligible(tree, req.shape)
    raw = fits_count(ledger.free, columns, req.shape.requests)
    if mask is not None:
        raw = np.where(mask, raw, 0)
    node_pods = raw
    node_ok: BoolArray | None = mask
    if allowed_leaves is not None:
        inside = allowed_leaves[tree.node_domain[-1]]
        node_pods = np.where(inside, raw, 0)
        node_ok = inside if node_ok is None else node_ok & inside
    leader_fits: BoolArray | None = None
    with_leader: IntArray | None = None
    if req.leader_requests is not None:
        vec = ledger.vector(req.leader_requests)
        leader_fits = fits_count(ledger.free, columns, req.leader_requests) >= 1
        if node_ok is not None:
            leader_fits &= node_ok
        with_leader = fits_count(ledger.free - vec[None, :], columns, req.shape.requests)
        if node_ok is not None:
            with_leader = np.where(node_ok, with_leader, 0)
    nodes = PhaseOne(raw, node_pods, leader_fits, with_leader, [])
    return replace(nodes, counts=level_counts(tree, req, nodes))


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


class KeptPhaseOne:
    """Phase-1 results made on one snapshot version, by request kind (``for_snapshot``)."""

    def __init__(self, version: int) -> None:
        self.version = version
        # By request kind: the per-node numbers (counts left out), and the counts once kept.
        self._found: dict[Hashable, tuple[PhaseOne, list[LevelCounts] | None]] = {}

    def solve(self, tree: TopologyTree, ledger: Ledger, req: Request) -> tuple[PhaseOne, list[LevelCounts]]:
        """Phase 1 of ``req`` on the snapshot's own capacity (``ledger`` charged nothing yet),
        and counts phase 2 may write into."""
        key = (
            req.shape,
            req.leader_requests,
            req.slice_level,
            req.slice_size,
            tuple(req.inner_sizes.items()),
        )
        found = self._found.get(key)
        if found is None:
            made = phase_one(tree, ledger, req)
            for shared in (made.raw, made.node_pods, made.leader_fits, made.with_leader):
                if shared is not None:
                    shared.setflags(write=False)
            if len(self._found) >= _KEPT:
                self._found.pop(next(iter(self._found)), None)  # the oldest
            self._found[key] = (replace(made, counts=[]), None)
            return made, made.counts
        nodes, counts = found
        if counts is None:  # asked for again: keep the counts too
            counts = level_counts(tree, req, nodes)
            self._found[key] = (nodes, counts)
        return nodes, [lc.copy(lc.offset, lc.offset + len(lc.pod)) for lc in counts]


_BY_SNAPSHOT: WeakKeyDictionary[Snapshot, KeptPhaseOne] = WeakKeyDictionary()


def for_snapshot(snapshot: Snapshot) -> KeptPhaseOne:
    """The phase-1 results kept for ``snapshot``'s current version (none after a change)."""
    kept = _BY_SNAPSHOT.get(snapshot)
    if kept is None or kept.version != snapshot.version:
        kept = _BY_SNAPSHOT[snapshot] = KeptPhaseOne(snapshot.version)
    return kept
