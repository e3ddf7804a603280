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
  ``floor(10 * (i + 1) / N)``, so the least loaded sub-domain (on ties the later id) scores
  highest; then GPU bin-packing (less free GPU first, CPU for CPU-only pods); then node name.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from toposched.engine.space import NodeSpace, TopoView
from toposched.model import CPU, MEMORY, PODS, PodSpec, Resources
from toposched.snapshot import BoolArray
from toposched.topology import IntArray

FloatArray = npt.NDArray[np.float64]
NOTHING_FREE = 1000.0  # KAI's ratio for a requested resource with no free amount
_BASIC = {CPU, MEMORY, PODS, "ephemeral-storage"}


def summed(pods: list[PodSpec]) -> dict[str, int]:
    """Requests of all pods added up, the ``pods`` slot left out."""
    out: dict[str, int] = {}
    for pod in pods:
        for resource, amount in pod.requests.items():
            if resource != PODS and amount > 0:
                out[resource] = out.get(resource, 0) + amount
    return out


def homogeneous(pods: list[PodSpec]) -> bool:
    """Every extended resource (GPUs included) is requested by all pods or by none."""
    extended = {r for p in pods for r, a in p.requests.items() if a > 0 and r not in _BASIC}
    return all(all(p.requests[r] > 0 for p in pods) for r in extended)


def representative(pods: list[PodSpec]) -> Resources:
    """The element-wise largest pod."""
    out = Resources()
    for pod in pods:
        out = out.maximum(pod.requests)
    return out


@dataclass(frozen=True, slots=True)
class LevelFit:
    """Per domain of one level (the root is a level of one domain): ratio, capacity, fit."""

    ratio: FloatArray
    capacity: IntArray | None  # whole pods, for homogeneous pods only
    fits: BoolArray


def level_fits(space: NodeSpace, view: TopoView, pods: list[PodSpec], deepest: int) -> dict[int, LevelFit]:
    """``LevelFit`` for the root (key -1) and levels 0..``deepest``, over every member node of the
    topology (nodes outside the caller's node set count too, as in KAI)."""
    rows = np.flatnonzero(view.member)
    total = summed(pods)
    n = len(pods)
    free = {r: np.maximum(space.column(r)[rows], 0) for r in total}
    per_row_cap: IntArray | None = None
    if homogeneous(pods):
        rep = {r: a for r, a in representative(pods).items() if r != PODS and a > 0}
        per_row_cap = np.full(len(rows), n, dtype=np.int64)
        for r, amount in rep.items():
            per_row_cap = np.minimum(per_row_cap, np.maximum(space.column(r)[rows], 0) // amount)
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
    return out


def sorted_levels(
    view: TopoView, fits: dict[int, LevelFit], top: int, top_index: int, deepest: int
) -> dict[int, list[int]]:
    """Domains per level below the lowest common domain (``top``; -1 = root), in KAI's
    hierarchical order: children of earlier parents first, siblings fullest first, then by id."""
    tree = view.tree
    order: dict[int, list[int]] = {top: [top_index]}
    for level in range(top + 1, deepest + 1):
        ratio = fits[level].ratio
        row: list[int] = []
        for parent in order[level - 1]:
            kids = range(tree.count(0)) if level == 0 else range(*tree.children(level - 1, parent))
            row += sorted(kids, key=lambda d: (-float(ratio[d]), view.domain_id(level, d)))
        order[level] = row
    return order


def topology_scores(space: NodeSpace, view: TopoView, level: int, ordered: list[int]) -> IntArray:
    """Per row, the positional score of its preferred-level domain (0 outside ``ordered``)."""
    by_domain = np.zeros(view.tree.count(level), dtype=np.int64)
    n = len(ordered)
    for i, domain in enumerate(ordered):
        by_domain[domain] = (10 * (i + 1)) // n
    codes = view.codes[level]
    return np.where(codes >= 0, by_domain[np.maximum(codes, 0)], 0)


def pack_resource(pod: PodSpec) -> str:
    """The resource bin-packing compares: the GPU the pod asks for, else CPU."""
    for resource, amount in sorted(pod.requests.items()):
        if amount > 0 and "gpu" in resource:
            return resource
    return CPU


def pick_node(
    space: NodeSpace, rows: IntArray, vec: IntArray, allowed: BoolArray, scores: IntArray | None, pack: str
) -> int | None:
    """The row a pod goes to among ``rows``: fits and is allowed; highest topology score, then
    least free ``pack`` resource, then node name. None when no row fits."""
    if len(rows) == 0:
        return None
    wanted = np.flatnonzero(vec > 0)
    free = space.free[rows]
    ok = allowed[rows] & np.all(free[:, wanted] >= vec[wanted], axis=1)
    if not ok.any():
        return None
    rows = rows[ok]
    topo = scores[rows] if scores is not None else np.zeros(len(rows), dtype=np.int64)
    packed = space.column(pack)[rows]
    best = np.lexsort((rows, packed, -topo))[0]
    return int(rows[best])
