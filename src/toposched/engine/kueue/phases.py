"""One request on one snapshot: phase 1 (counts), 2a (level and domains), 2b (down to leaves),
then concrete nodes. Failures come back as ``Unschedulable`` values carrying Kueue's reason."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from toposched.engine.core import messages
from toposched.engine.core.counts import LevelCounts, SharedCounts
from toposched.engine.core.greedy import InconsistentError
from toposched.engine.core.ledger import Ledger
from toposched.engine.core.messages import Reasons
from toposched.engine.core.request import Request
from toposched.engine.kueue.choose_level import NoDomainsError, NoFitError, find_level
from toposched.engine.kueue.descend import descend
from toposched.engine.kueue.phase_one import PhaseOneCache, phase_one
from toposched.model import LayerFit, Unschedulable
from toposched.snapshot import BoolArray, ExclusionStats, eligible, exclusion_stats
from toposched.snapshot.capacity import per_slot_requests
from toposched.topology import IntArray, TopologyTree

_MARK_SHARE = 16  # sort fewer than one domain in this many; mark more


@dataclass(frozen=True, slots=True, eq=False)
class Solved:
    """Where one request goes: worker pods per leaf and per node, and the leader's leaf and node.

    Kept as arrays: the per-pod output is built from them in bulk, and the pair views
    (``leaves``, ``nodes``) only when something asks for them."""

    request: Request
    leaf_ids: IntArray  # leaves that get worker pods, in path order
    leaf_pods: IntArray  # worker pods per leaf (all > 0)
    node_ids: IntArray  # nodes that get worker pods, in the order pods fill them
    node_pods: IntArray  # worker pods per node (all > 0)
    leader: tuple[int, int] | None  # (leaf, node)

    @classmethod
    def of(
        cls,
        request: Request,
        leaves: list[tuple[int, int]],
        nodes: list[tuple[int, int]],
        leader: tuple[int, int] | None,
    ) -> Solved:
        """From (leaf, pods) and (node, pods) pairs."""
        return cls(request, *_columns(leaves), *_columns(nodes), leader)

    @property
    def leaves(self) -> tuple[tuple[int, int], ...]:
        """(leaf, worker pods) pairs, leaves in path order."""
        return tuple(zip(self.leaf_ids.tolist(), self.leaf_pods.tolist(), strict=True))

    @property
    def nodes(self) -> tuple[tuple[int, int], ...]:
        """(node, worker pods) pairs, in the order pods fill them."""
        return tuple(zip(self.node_ids.tolist(), self.node_pods.tolist(), strict=True))

    def pod_rows(self) -> IntArray:
        """Per worker pod, in fill order, the node it goes to."""
        return np.repeat(self.node_ids, self.node_pods)


def _columns(pairs: list[tuple[int, int]]) -> tuple[IntArray, IntArray]:
    return (
        np.asarray([a for a, _ in pairs], dtype=np.int64),
        np.asarray([b for _, b in pairs], dtype=np.int64),
    )


def solve(
    tree: TopologyTree,
    ledger: Ledger,
    req: Request,
    reasons: Reasons,
    allowed_leaves: BoolArray | None = None,
    *,
    kept: PhaseOneCache | None = None,
) -> Solved | Unschedulable:
    """Place one request (Kueue's findTopologyAssignment) on the ledger's free capacity (rows in
    ``tree``'s node order). ``kept``: phase-1 results of the snapshot the ledger holds unchanged
    (``phase_one.for_snapshot``; no ``allowed_leaves`` then)."""
    shared: SharedCounts | None = None
    if kept is not None and allowed_leaves is None:
        one, counts, shared = kept.solve(tree, ledger, req)
    else:
        one = phase_one(tree, ledger, req, allowed_leaves)
        counts = one.counts
    raw, node_pods, leader_fits, with_leader = one.raw, one.node_pods, one.leader_fits, one.with_leader
    columns = ledger.columns
    try:
        if req.spread is not None and shared is not None:  # the policy's placement writes as it searches
            counts, shared = shared.below(tree, 0, np.arange(tree.count(0), dtype=np.int64)), None
        placed = None if req.spread is None else req.spread(tree, counts, req)
        if placed is None:
            level, chosen = find_level(tree, counts, req, req.level)  # reads only
        else:
            level, chosen = placed
        if shared is not None:
            counts = shared.below(tree, level, chosen)
        leaves = descend(tree, counts, req, level, chosen, balanced=placed is not None)
    except NoDomainsError as exc:
        key = tree.levels[exc.level]
        return reasons.refuse(f"no topology domains at level: {key}", group=req.name, level=key)
    except NoFitError as exc:
        stats = exclusion_stats(tree, ledger.free, columns, req.shape, raw, allowed_leaves)
        return _no_fit(tree, counts, req, exc, stats, ledger, reasons)
    except InconsistentError as exc:
        return reasons.refuse(f"internal placement error for {req.name!r}: {exc}", group=req.name)
    return _result(tree, counts[-1], req, leaves, node_pods, leader_fits, with_leader, reasons)


def _no_fit(
    tree: TopologyTree,
    counts: list[LevelCounts],
    req: Request,
    exc: NoFitError,
    stats: ExclusionStats,
    ledger: Ledger,
    reasons: Reasons,
) -> Unschedulable:
    name = tree.topology.name
    key = tree.levels[exc.level]
    best = None if exc.best is None else tree.path(exc.level, exc.best)
    shortfall = _shortfall(tree, ledger, req, exc.level, exc.best)
    if req.layers:
        layers = _layer_fits(tree, counts, req, exc.level)
        text = messages.layers_text(name, layers, stats)
        top = _best_by_slices(counts[exc.level])
        return reasons.refuse(
            text,
            group=req.name,
            level=key,
            best_domain=None if top is None else tree.path(exc.level, top),
            fit=exc.fit,
            needed=exc.needed,
            unit="slice",
            stats=stats,
            shortfall=shortfall,
            layers=layers,
        )
    text = messages.not_fit_text(name, exc.fit, exc.needed, req.slice_size, stats)
    unit = "pod" if req.slice_size == 1 else "slice"
    return reasons.refuse(
        text,
        group=req.name,
        level=key,
        best_domain=best,
        fit=exc.fit,
        needed=exc.needed,
        unit=unit,
        stats=stats,
        shortfall=shortfall,
    )


def _best_by_slices(lc: LevelCounts) -> int | None:
    if len(lc.slices) == 0:
        return None
    return int(np.argmax(lc.slices)) + lc.offset  # argmax: first maximum = smallest path


def _layer_fits(
    tree: TopologyTree, counts: list[LevelCounts], req: Request, level: int
) -> tuple[LayerFit, ...]:
    """Slices of every layer that fit in the domain with the most slices at ``level``."""
    best = _best_by_slices(counts[level])
    out: list[LayerFit] = []
    for layer in req.layers:
        target = tree.level_index(layer.level)
        if target is None or best is None:
            continue
        start, end = tree.descendants(level, best, target)
        fit = int((counts[target].pods[start:end] // layer.size).sum())
        out.append(LayerFit(layer.level, fit, req.count // layer.size))
    return tuple(out)


def _shortfall(
    tree: TopologyTree, ledger: Ledger, req: Request, level: int, domain: int | None
) -> dict[str, int]:
    """Per resource, how much the request lacks in its best domain (the whole cluster if none)."""
    if domain is None:
        lo, hi = 0, tree.node_count
    else:
        first, last = tree.descendants(level, domain, tree.leaf_level)
        lo, hi = int(tree.leaf_start[first]), int(tree.leaf_end[last - 1])
    mask = eligible(tree, req.shape)
    free = np.maximum(ledger.free[lo:hi], 0)
    if mask is not None:
        free = free[mask[lo:hi]]
    total = free.sum(axis=0)
    wanted = {k: v * req.count for k, v in per_slot_requests(req.shape.requests).items()}
    if req.leader_requests is not None:
        for k, v in per_slot_requests(req.leader_requests).items():
            wanted[k] = wanted.get(k, 0) + v
    out: dict[str, int] = {}
    for resource, amount in sorted(wanted.items()):
        col = ledger.columns.get(resource)
        have = int(total[col]) if col is not None else 0
        if amount > have:
            out[resource] = amount - have
    return out


def _result(
    tree: TopologyTree,
    leaves_counts: LevelCounts,
    req: Request,
    leaves: IntArray,
    node_pods: IntArray,
    leader_fits: npt.NDArray[np.bool_] | None,
    with_leader: IntArray | None,
    reasons: Reasons,
) -> Solved | Unschedulable:
    leaves = in_index_order(leaves, leaves_counts.offset + len(leaves_counts.pods))
    loc = leaves_counts.loc(leaves)
    workers = leaves_counts.pods[loc]
    leads = leaves_counts.lead[loc] if req.leader is not None else None
    lost = int(workers.sum()) != req.count
    if lost or (0 if leads is None else int(leads.sum())) != req.leader_count:
        return reasons.refuse(
            f"internal placement error for {req.name!r}: pods lost on the way down", group=req.name
        )
    leader: tuple[int, int] | None = None
    if tree.one_node_per_leaf:
        first = tree.leaf_start
        if leads is not None:
            at = int(leaves[int(leads.argmax())])
            leader = (at, int(first[at]))
        some = workers > 0
        used, taken = leaves[some], workers[some]
        return Solved(req, used, taken, first[used], taken, leader)
    if leads is None:
        leads = np.zeros(len(leaves), dtype=np.int64)
    placed = [(leaf, c) for leaf, c in zip(leaves.tolist(), workers.tolist(), strict=True) if c > 0]
    nodes: list[tuple[int, int]] = []
    for leaf, count, lead in zip(leaves.tolist(), workers.tolist(), leads.tolist(), strict=True):
        members = tree.leaf_nodes(leaf)
        caps = node_pods[members.start : members.stop].copy()
        if lead:
            assert leader_fits is not None and with_leader is not None
            fits = leader_fits[members.start : members.stop]
            loss = np.where(fits, caps - with_leader[members.start : members.stop], np.iinfo(np.int64).max)
            pick = int(np.argmin(loss))
            leader = (leaf, members.start + pick)
            caps[pick] = with_leader[members.start + pick]
        if count == 0:
            continue
        if len(members) == 1:
            nodes.append((members.start, count))
            continue
        left = count
        for offset, cap in enumerate(caps.tolist()):
            take = min(cap, left)
            if take > 0:
                nodes.append((members.start + offset, take))
                left -= take
            if left == 0:
                break
        if left:
            return reasons.refuse(
                f"internal placement error for {req.name!r}: leaf without room", group=req.name
            )
    return Solved.of(req, placed, nodes, leader)


def in_index_order(domains: IntArray, count: int) -> IntArray:
    """Distinct domain indices (all below ``count``) sorted. When they are a good share of the
    level, marking each and reading the marks back is several times cheaper than sorting."""
    if len(domains) * _MARK_SHARE < count:
        return np.sort(domains)
    marks = np.zeros(count, dtype=np.bool_)
    marks[domains] = True
    return np.flatnonzero(marks)
