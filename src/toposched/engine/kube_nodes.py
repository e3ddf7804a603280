"""kube-scheduler's node-level rules inside one candidate placement: which node a pod goes to,
and how full a placement is once its pods are in.

Per pod (the ordinary Filter and Score run on the placement's nodes): a node passes when the
pod tolerates its taints, matches its selector and fits in its free capacity (the ``pods`` slot
included), as the engine's capacity encodes everywhere. Of the nodes that pass, the pod takes
the one the default profile's ``NodeResourcesFit`` scores highest with its default
``LeastAllocated`` strategy: per resource ``(free - request) * 100 // allocatable``, averaged
with weight 1 each. kube-scheduler picks at random among equal nodes; here the first node by
name wins. The other default score plugins (image locality, balanced allocation, spreading,
affinity) are not modelled: the engine knows no images, affinities or spreading constraints.

Per placement (``NodeResourcesFit`` as placement scorer, always ``MostAllocated``): per resource
``(allocatable - free) * 100 // allocatable`` summed over the placement's nodes after the
proposed pods, averaged with weight 1 each: the fullest placement scores highest.

Both scores read the resources the group's pods request (``pods`` slot aside). kube-scheduler's
default list is cpu and memory; pods that ask only for accelerators would tie on every node and
every rack under it, so the requested resources are the ones that separate the candidates.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from toposched.engine.space import NodeSpace
from toposched.model import PODS, Node, PodSpec, Resources
from toposched.snapshot import Snapshot
from toposched.topology import IntArray

MAX_SCORE = 100  # kube-scheduler's MaxNodeScore


class KubeNodes:
    """Allocatable amounts beside a ``NodeSpace``'s free ones, for kube-scheduler's scores."""

    def __init__(self, space: NodeSpace, snapshots: Iterable[Snapshot], pods: Iterable[PodSpec]) -> None:
        self.space = space
        ledger = space.ledger
        for pod in pods:  # every column a pod asks for exists before the matrix is read
            ledger.vector(pod.requests)
        nodes: dict[str, Node] = {}
        for snap in snapshots:
            for node in snap.tree.nodes:
                nodes.setdefault(node.name, node)
        self.allocatable: IntArray = np.zeros_like(ledger.free)
        for row, name in enumerate(space.names):
            for resource, amount in nodes[name].allocatable.items():
                column = ledger.columns.get(resource)
                if column is not None:
                    self.allocatable[row, column] = amount

    def columns(self, requests: Iterable[Resources]) -> IntArray:
        """The ledger columns of the resources these requests ask for (``pods`` slot aside)."""
        columns = self.space.ledger.columns
        names = sorted({name for r in requests for name, amount in r.items() if amount > 0 and name != PODS})
        return np.asarray([columns[name] for name in names if name in columns], dtype=np.int64)

    def pick(self, pod: PodSpec, rows: IntArray) -> int | None:
        """The row of ``rows`` the pod goes to, or None when it fits none."""
        if len(rows) == 0:
            return None
        ledger = self.space.ledger
        vec = ledger.vector(pod.requests)
        selector = tuple(sorted(pod.node_selector.items()))
        ok = self.space.eligible(pod.tolerations, selector)[rows]
        ok &= np.all(ledger.free[rows] >= vec, axis=1)
        fit = rows[ok]
        if len(fit) == 0:
            return None
        cols = self.columns([pod.requests])
        if len(cols) == 0:
            scores: IntArray = np.zeros(len(fit), dtype=np.int64)
        else:
            alloc = self.allocatable[fit][:, cols]
            left = ledger.free[fit][:, cols] - vec[cols]
            per = np.where(alloc > 0, left * MAX_SCORE // np.maximum(alloc, 1), 0)
            scores = per.sum(axis=1) // len(cols)
        best = np.lexsort((self.space.name_rank[fit], -scores))[0]
        return int(fit[best])

    def fullness(self, rows: IntArray, cols: IntArray) -> int:
        """``MostAllocated`` over all of ``rows`` together: 0 (empty) to 100 (full)."""
        if len(rows) == 0 or len(cols) == 0:
            return 0
        alloc = self.allocatable[rows][:, cols].sum(axis=0)
        used = alloc - self.space.ledger.free[rows][:, cols].sum(axis=0)
        per = np.where(alloc > 0, used * MAX_SCORE // np.maximum(alloc, 1), 0)
        return int(per.sum()) // len(cols)
