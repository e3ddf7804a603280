"""Phase 1: how many pods, slices and leaders fit in every domain, bottom-up, vectorised.

Per domain (arrays per level, indexed by domain index):

* ``pods``  pods that fit; ``pods_with_leader`` pods that still fit when the domain also hosts
  the leader;
* ``slices``  slices that fit (at the slice level ``pods // slice_size``, summed above it, 0
  below); ``slices_with_leader`` the same with the leader;
* ``lead`` 1 when the leader pod fits somewhere inside.

A parent's ``pods_with_leader`` is its ``pods`` minus the smallest loss any leader-capable child suffers by
hosting the leader. With inner slice layers each child's pods are first rounded down to a multiple
of the inner size at the child's level, so capacity that cannot form a full inner group is
invisible upwards. Phase 2 reuses the same arrays as scratch: a chosen domain's ``pods`` becomes
the number of pods it is given.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import numpy.typing as npt

from toposched.topology import IntArray, TopologyTree

_NEVER = np.int64(2**62)


class LevelCounts:
    """The phase-1 numbers of a contiguous range of domains of one level (``offset`` = first)."""

    __slots__ = ("lead", "offset", "pods", "pods_with_leader", "slices", "slices_with_leader")

    def __init__(
        self,
        offset: int,
        pods: IntArray,
        pods_with_leader: IntArray,
        slices: IntArray,
        slices_with_leader: IntArray,
        lead: IntArray,
    ) -> None:
        self.offset = offset
        self.pods = pods
        self.pods_with_leader = pods_with_leader
        self.slices = slices
        self.slices_with_leader = slices_with_leader
        self.lead = lead

    def loc(self, index: IntArray) -> IntArray:
        """Array positions of global domain indices."""
        return index - self.offset if self.offset else index

    def copy(self, start: int, end: int) -> LevelCounts:
        """Independent numbers for the global index range [start, end)."""
        a, b = start - self.offset, end - self.offset
        return LevelCounts(
            start,
            self.pods[a:b].copy(),
            self.pods_with_leader[a:b].copy(),
            self.slices[a:b].copy(),
            self.slices_with_leader[a:b].copy(),
            self.lead[a:b].copy(),
        )

    def store(self, other: LevelCounts) -> None:
        """Write back the numbers of a copied range."""
        a = other.offset - self.offset
        b = a + len(other.pods)
        self.pods[a:b] = other.pods
        self.pods_with_leader[a:b] = other.pods_with_leader
        self.slices[a:b] = other.slices
        self.slices_with_leader[a:b] = other.slices_with_leader
        self.lead[a:b] = other.lead


class SharedCounts:
    """Counts of every level kept for several placements, read-only: a placement searches them
    as they are and writes into copies of the part under the domains it chose (``below``).
    Each level's five arrays are the rows of one, so a range of them is copied at once."""

    __slots__ = ("_stacked", "levels")

    def __init__(self, counts: list[LevelCounts]) -> None:
        self._stacked: list[tuple[int, IntArray]] = []
        self.levels: list[LevelCounts] = []  # read-only views, every level whole
        for lc in counts:
            rows = np.concatenate(
                (lc.pods, lc.pods_with_leader, lc.slices, lc.slices_with_leader, lc.lead)
            ).reshape(5, -1)  # np.stack costs more
            rows.setflags(write=False)
            self._stacked.append((lc.offset, rows))
            self.levels.append(LevelCounts(lc.offset, *rows))

    def below(self, tree: TopologyTree, level: int, chosen: IntArray) -> list[LevelCounts]:
        """Counts phase 2b may write into when it descends from ``chosen`` at ``level``: copies
        of the range of domains from the first to the last chosen one and, at every level below,
        of their descendants' range (each one contiguous); the levels above as they are."""
        out = self.levels[:level]
        lo, hi = (int(chosen.min()), int(chosen.max()) + 1) if len(chosen) else (0, 0)
        for lvl in range(level, len(self._stacked)):
            offset, rows = self._stacked[lvl]
            out.append(LevelCounts(lo, *rows[:, lo - offset : hi - offset].copy()))
            if hi > lo and lvl < tree.leaf_level:
                lo, hi = int(tree.child_start[lvl][lo]), int(tree.child_end[lvl][hi - 1])
        return out


def leaf_counts(
    tree: TopologyTree,
    node_pods: IntArray,
    leader_fits: npt.NDArray[np.bool_] | None,
    node_pods_with_leader: IntArray | None,
    slice_level: int,
    slice_size: int,
) -> LevelCounts:
    """Leaf numbers from per-node numbers. A leaf of several nodes (topologies whose lowest level
    is not the hostname) takes the sum of its nodes' pod counts, so no pod is promised that no
    single node can hold; the leader goes where it costs the fewest worker pods."""
    single = tree.one_node_per_leaf
    starts = tree.leaf_start
    pod = node_pods.copy() if single else np.add.reduceat(node_pods, starts) if len(starts) else node_pods[:0]
    if leader_fits is None or node_pods_with_leader is None:
        podl = pod.copy()
        lead = np.zeros(len(pod), dtype=np.int64)
    elif single:
        lead = leader_fits.astype(np.int64)
        podl = np.where(leader_fits, node_pods_with_leader, node_pods)
    else:
        lead = np.maximum.reduceat(leader_fits.astype(np.int64), starts)
        loss = np.minimum.reduceat(np.where(leader_fits, node_pods - node_pods_with_leader, _NEVER), starts)
        podl = np.where(lead > 0, pod - loss, pod)
    if tree.leaf_level == slice_level:
        slc, slcl = _slices(pod, slice_size), _slices(podl, slice_size)
    else:
        slc, slcl = np.zeros(len(pod), dtype=pod.dtype), np.zeros(len(pod), dtype=pod.dtype)
    return LevelCounts(0, pod, podl, slc, slcl, lead)


def _slices(pods: IntArray, size: int) -> IntArray:
    """Whole slices of ``size`` pods, as a new array (an integer division costs several copies)."""
    return pods.copy() if size == 1 else pods // size


def aggregate(
    tree: TopologyTree,
    parent: LevelCounts,
    child: LevelCounts,
    level: int,
    start: int,
    end: int,
    *,
    slice_level: int,
    slice_size: int,
    inner_sizes: Mapping[int, int],
    leader: bool,
) -> None:
    """Recompute the domains [start, end) of ``level`` from their children (Kueue's roll-up)."""
    if end <= start:
        return
    cs = tree.child_start[level][start:end]
    c0, c1 = int(cs[0]), int(tree.child_end[level][end - 1])
    a, b = c0 - child.offset, c1 - child.offset
    pod_c, podl_c, slc_c, slcl_c, lead_c = (
        child.pods[a:b],
        child.pods_with_leader[a:b],
        child.slices[a:b],
        child.slices_with_leader[a:b],
        child.lead[a:b],
    )
    inner = inner_sizes.get(level + 1)
    if inner:
        pod_c, podl_c = pod_c // inner * inner, podl_c // inner * inner
    seg = cs - c0
    pod = np.add.reduceat(pod_c, seg)
    slices = np.add.reduceat(slc_c, seg)
    if leader:
        contributes = lead_c > 0
        loss = np.minimum.reduceat(np.where(contributes, pod_c - podl_c, _NEVER), seg)
        slice_loss = np.minimum.reduceat(np.where(contributes, slc_c - slcl_c, _NEVER), seg)
        lead = np.maximum.reduceat(lead_c, seg)
        any_contributor = lead > 0
        podl = np.where(any_contributor, pod - loss, 0)
        slcl = np.where(any_contributor, slices - slice_loss, 0)
    else:
        # Without a leader ``pods_with_leader``/``slices_with_leader`` equal ``pods``/``slices`` everywhere (no child loses
        # anything by hosting one), so the smallest loss is 0 and nothing needs reducing.
        podl, slcl, lead = pod, slices, np.maximum.reduceat(lead_c, seg)
    if level == slice_level:
        slices, slcl = pod // slice_size, podl // slice_size
    p0, p1 = start - parent.offset, end - parent.offset
    parent.pods[p0:p1] = pod
    parent.pods_with_leader[p0:p1] = podl
    parent.slices[p0:p1] = slices
    parent.slices_with_leader[p0:p1] = slcl
    parent.lead[p0:p1] = lead


def fill_counts(
    tree: TopologyTree,
    node_pods: IntArray,
    *,
    slice_level: int,
    slice_size: int,
    inner_sizes: Mapping[int, int],
    leader_fits: npt.NDArray[np.bool_] | None = None,
    node_pods_with_leader: IntArray | None = None,
) -> list[LevelCounts]:
    """Phase 1 over the whole tree: per-level numbers, leaves first, then every parent."""
    leaves = leaf_counts(tree, node_pods, leader_fits, node_pods_with_leader, slice_level, slice_size)
    if leader_fits is None:
        return _fill_without_leader(tree, leaves, slice_level, slice_size, inner_sizes)
    levels: list[LevelCounts] = [leaves]
    for level in range(tree.depth - 2, -1, -1):
        n = tree.count(level)
        zeros = [np.zeros(n, dtype=np.int64) for _ in range(5)]
        counts = LevelCounts(0, zeros[0], zeros[1], zeros[2], zeros[3], zeros[4])
        aggregate(
            tree,
            counts,
            levels[0],
            level,
            0,
            n,
            slice_level=slice_level,
            slice_size=slice_size,
            inner_sizes=inner_sizes,
            leader=True,
        )
        levels.insert(0, counts)
    return levels


def _fill_without_leader(
    tree: TopologyTree, leaves: LevelCounts, slice_level: int, slice_size: int, inner_sizes: Mapping[int, int]
) -> list[LevelCounts]:
    """``aggregate`` over whole levels when there is no leader, reducing only what can be non-zero:
    ``lead`` is 0 everywhere, ``pods_with_leader``/``slices_with_leader`` equal ``pods``/``slices`` (separate arrays, since phase
    2 writes them separately), and slices are 0 below the slice level and ``pod // slice_size`` at it."""
    levels = [leaves]
    child = leaves
    # Slices of one pod without inner layers: above the slice level slices sum what pods sum.
    slices_are_pods = slice_size == 1 and not inner_sizes
    for level in range(tree.depth - 2, -1, -1):
        n = tree.count(level)
        if n == 0:
            zeros = [np.zeros(0, dtype=np.int64) for _ in range(5)]
            child = LevelCounts(0, zeros[0], zeros[1], zeros[2], zeros[3], zeros[4])
            levels.append(child)
            continue
        seg = tree.child_start[level]
        inner = inner_sizes.get(level + 1)
        pod = np.add.reduceat(child.pods // inner * inner if inner else child.pods, seg)
        if level > slice_level:
            slc = np.zeros(n, dtype=np.int64)
        elif level == slice_level:
            slc = _slices(pod, slice_size)
        else:
            slc = pod.copy() if slices_are_pods else np.add.reduceat(child.slices, seg)
        child = LevelCounts(0, pod, pod.copy(), slc, slc.copy(), np.zeros(n, dtype=np.int64))
        levels.append(child)
    levels.reverse()
    return levels
