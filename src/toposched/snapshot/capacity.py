"""How many pods of one shape fit on each node, and why nodes fit none (for messages).

Everything is vectorised over the member nodes of a tree: one integer division per requested
resource, then a minimum. Node filters follow Kueue's order: taint, then node selector, then
resources. Kueue checks taints and selectors only when the lowest level is the hostname; toposched
checks them for every topology (DESIGN.md, "Seed vs upstream").
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np
import numpy.typing as npt

from toposched.model import PODS, Resources, Toleration
from toposched.model.node import tolerates_all
from toposched.topology import IntArray, TopologyTree

BoolArray = npt.NDArray[np.bool_]


@dataclass(frozen=True, slots=True)
class PodShape:
    """What decides where a pod fits: its requests (without the pods slot), tolerations, selector."""

    requests: Resources
    tolerations: tuple[Toleration, ...] = ()
    selector: tuple[tuple[str, str], ...] = ()


def per_slot_requests(requests: Resources) -> dict[str, int]:
    """The requests the scheduler charges for one pod: non-zero requests plus one ``pods`` unit."""
    return dict(_per_slot(requests))


@lru_cache(maxsize=1024)  # a cycle sees few distinct request maps, each many times
def _per_slot(requests: Resources) -> tuple[tuple[str, int], ...]:
    charged = {name: amount for name, amount in requests.items() if amount > 0 and name != PODS}
    charged[PODS] = 1 + max(0, requests[PODS])
    return tuple(charged.items())


def fits_count(free: IntArray, columns: Mapping[str, int], requests: Resources) -> IntArray:
    """Per row of ``free``, how many pods with ``requests`` (plus the pods slot) fit; at least 0."""
    result: IntArray | None = None
    for name, amount in _per_slot(requests):
        col = columns.get(name)
        if col is None:
            return np.zeros(free.shape[0], dtype=np.int64)
        count = free[:, col] // amount
        result = count if result is None else np.minimum(result, count)
    assert result is not None  # the pods slot is always requested
    return np.maximum(result, 0)


def level_sums(tree: TopologyTree, per_node: IntArray) -> list[IntArray]:
    """Per level (coarsest first), a per-node quantity summed over each domain."""
    if tree.node_count == 0:
        return [np.zeros(0, dtype=per_node.dtype) for _ in range(tree.depth)]
    sums = [per_node if tree.one_node_per_leaf else np.add.reduceat(per_node, tree.leaf_start)]
    for level in range(tree.depth - 2, -1, -1):
        sums.insert(0, np.add.reduceat(sums[0], tree.child_start[level]))
    return sums


def taint_blocked(tree: TopologyTree, tolerations: tuple[Toleration, ...]) -> list[tuple[str, IntArray]]:
    """For nodes whose taints are not all tolerated: the first untolerated taint and the nodes."""
    blocked: list[tuple[str, IntArray]] = []
    for taints, nodes in tree.columns.taint_groups():
        taint = tolerates_all(tolerations, taints)
        if taint is not None:
            blocked.append((str(taint), nodes))
    return blocked


def selector_mismatch(tree: TopologyTree, selector: tuple[tuple[str, str], ...]) -> BoolArray:
    """True for member nodes that miss a selector label or carry another value."""
    miss = np.zeros(tree.node_count, dtype=np.bool_)
    for key, value in selector:
        codes, table = tree.columns.label_codes(key)
        code = table.get(value)
        miss |= codes != code if code is not None else np.ones(tree.node_count, dtype=np.bool_)
    return miss


def eligible(tree: TopologyTree, shape: PodShape) -> BoolArray | None:
    """Member nodes a pod of ``shape`` may use, or None when every node passes the filters."""
    mask: BoolArray | None = None
    blocked = taint_blocked(tree, shape.tolerations)
    if blocked:
        mask = np.ones(tree.node_count, dtype=np.bool_)
        for _, nodes in blocked:
            mask[nodes] = False
    if shape.selector:
        passing = ~selector_mismatch(tree, shape.selector)
        mask = passing if mask is None else mask & passing
    return mask


@dataclass(slots=True)
class ExclusionStats:
    """Why leaves could not take a pod, counted the way Kueue's messages count them."""

    total: int = 0
    node_selector: int = 0
    topology_domain: int = 0
    taints: dict[str, int] = field(default_factory=dict)
    resources: dict[str, int] = field(default_factory=dict)

    @property
    def any(self) -> bool:
        return bool(self.node_selector or self.topology_domain or self.taints or self.resources)

    def counts(self) -> dict[str, int]:
        """Reason label -> leaves, labels as Kueue prints them (``taint "k=v:NoSchedule"``)."""
        out: dict[str, int] = {}
        if self.node_selector:
            out["nodeSelector"] = self.node_selector
        if self.topology_domain:
            out["topologyDomain"] = self.topology_domain
        for taint, n in self.taints.items():
            out[f'taint "{taint}"'] = n
        for resource, n in self.resources.items():
            out[f'resource "{resource}"'] = n
        return out

    def text(self) -> str:
        """``nodeSelector: 2, resource "cpu": 1, ...`` sorted like Kueue sorts its reasons."""
        return ", ".join(sorted(f"{label}: {n}" for label, n in self.counts().items()))


def limiting_resources(free: IntArray, columns: Mapping[str, int], requests: Resources) -> list[str]:
    """Per row, the resource allowing the fewest pods (ties: alphabetical, so cpu before pods)."""
    names, index = limiting_index(free, columns, requests)
    return [names[i] for i in index.tolist()]


def limiting_index(
    free: IntArray, columns: Mapping[str, int], requests: Resources
) -> tuple[list[str], IntArray]:
    """The charged resource names (sorted) and, per row, the index of the limiting one."""
    charged = sorted(per_slot_requests(requests).items())
    counts = np.stack(
        [
            free[:, columns[name]] // amount if name in columns else np.zeros(free.shape[0], dtype=np.int64)
            for name, amount in charged
        ],
        axis=1,
    )
    return [name for name, _ in charged], np.argmin(counts, axis=1).astype(np.int64)


def exclusion_stats(
    tree: TopologyTree,
    free: IntArray,
    columns: Mapping[str, int],
    shape: PodShape,
    node_capacity: IntArray,
    allowed_leaves: BoolArray | None = None,
) -> ExclusionStats:
    """Count every leaf that takes no pod by its first failing check: taint, node selector,
    outside the allowed domain (node replacement), then the limiting resource.

    ``total`` is the number of leaves, as in Kueue: nodes for hostname topologies, leaf domains
    otherwise. A leaf of several nodes is counted by its first node (name order) when no node
    passes the filters; otherwise by its resource shortfall, taken on the summed free capacity of
    the passing nodes, or on the first passing node when the sum would fit a pod (fragmentation).
    """
    leaves = len(tree.leaf_start)
    stats = ExclusionStats(total=leaves)
    blocked = taint_blocked(tree, shape.tolerations)
    taint = np.full(tree.node_count, -1, dtype=np.int64)  # index into ``blocked``
    for k, (_, nodes) in enumerate(blocked):
        taint[nodes] = k
    selector = (
        selector_mismatch(tree, shape.selector) if shape.selector else np.zeros(tree.node_count, np.bool_)
    )
    passes = (taint < 0) & ~selector
    if tree.one_node_per_leaf:
        empty = node_capacity == 0
        if blocked:
            per_taint = np.bincount(taint[empty & (taint >= 0)], minlength=len(blocked))
            for (name, _), n in zip(blocked, per_taint.tolist(), strict=True):
                if n:
                    stats.taints[name] = stats.taints.get(name, 0) + n
        stats.node_selector = int(np.count_nonzero(empty & (taint < 0) & selector))
        short_mask = empty & passes
        if allowed_leaves is not None:
            stats.topology_domain = int(np.count_nonzero(passes & ~allowed_leaves))
            short_mask &= allowed_leaves
        rows = free[short_mask]
    else:
        leaf_capacity = np.add.reduceat(node_capacity, tree.leaf_start) if leaves else node_capacity[:0]
        if allowed_leaves is not None:
            # Leaves outside the allowed domain that still fit pods are excluded too.
            stats.topology_domain += int(np.count_nonzero(~allowed_leaves & (leaf_capacity > 0)))
        picked = []
        for leaf in np.flatnonzero(leaf_capacity == 0).tolist():
            members = tree.leaf_nodes(leaf)
            usable = [i for i in members if passes[i]]
            if not usable:
                first = members.start
                if taint[first] >= 0:
                    name = blocked[int(taint[first])][0]
                    stats.taints[name] = stats.taints.get(name, 0) + 1
                else:
                    stats.node_selector += 1
            elif allowed_leaves is not None and not allowed_leaves[leaf]:
                stats.topology_domain += 1
            else:
                summed = free[usable].sum(axis=0)
                if len(usable) > 1 and fits_count(summed[None, :], columns, shape.requests)[0] > 0:
                    summed = free[usable[0]]
                picked.append(summed)
        rows = np.asarray(picked, dtype=np.int64).reshape(len(picked), free.shape[1])
    if len(rows):
        names, index = limiting_index(rows, columns, shape.requests)
        counts = np.bincount(index, minlength=len(names))
        stats.resources = {name: int(n) for name, n in zip(names, counts.tolist(), strict=True) if n}
    return stats
