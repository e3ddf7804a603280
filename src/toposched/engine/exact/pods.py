"""Where the exact search (``exact``) puts a gang's pods: the running pods pinned to their rows
first, the splits of the placement being tried, each leaf's chosen rows, and, once a placement is
found, each pod's row and the elastic pods grown beyond the minima. Every pod is charged to the
node space's ledger as it lands."""

from __future__ import annotations

import numpy as np

from toposched.engine.core.ledger import Ledger
from toposched.engine.core.members import GroupNode, Progress
from toposched.engine.core.space import NodeSpace
from toposched.engine.exact.bounds import capacity
from toposched.model import PodSpec
from toposched.topology import IntArray


class FoundPods:
    """The pods of one exact search over ``space``, counted in ``progress``."""

    def __init__(self, space: NodeSpace, progress: Progress) -> None:
        self.space = space
        self.progress = progress
        self.where: dict[tuple[str, str], int] = {}  # (IR leaf, pod name) -> row
        self.placed: list[tuple[GroupNode, list[PodSpec], IntArray, list[int]]] = []  # splits so far
        self.held: dict[str, IntArray] = {}  # rows each group's running pods hold
        self.leaf_rows: dict[str, IntArray] = {}  # rows of each leaf placed so far

    @property
    def ledger(self) -> Ledger:
        return self.space.ledger

    def charge(self, row: int, pods: int, vec: IntArray) -> None:
        """``pods`` pods of ``vec`` on one row (negative: give them back)."""
        self.ledger.charge(np.asarray([row], dtype=np.int64), np.asarray([pods], dtype=np.int64), vec)

    def pin(self, root: GroupNode) -> None:
        """Charge pods that already run and note, per group, the rows they hold. Every resource
        the gang asks for gets its ledger column first, so request vectors keep one length."""
        rows_of: dict[str, list[int]] = {}
        for node in reversed(root.walk()):  # children before parents
            rows = [r for child in node.children for r in rows_of[child.name]]
            for position, pod in enumerate(node.pods if node.is_leaf else ()):
                self.ledger.vector(pod.requests)
                if pod.node is None:
                    continue
                self.progress.add(node, np.asarray([position], dtype=np.int64))
                row = self.space.row.get(pod.node)
                if row is not None:
                    self.charge(row, 1, self.ledger.vector(pod.requests))
                    self.where[(node.leaf, pod.name)] = row
                    rows.append(row)
            rows_of[node.name] = rows
            self.held[node.name] = np.unique(np.asarray(rows, dtype=np.int64))

    def record(self) -> None:
        """Each placed pod's row, from the splits of the placement found (pods in index order)."""
        for leaf, run, usable, take in self.placed:
            pods = iter(run)
            for row, count in zip(usable.tolist(), take, strict=True):
                for _ in range(count):
                    self.where[(leaf.leaf, next(pods).name)] = row

    def grow(self, root: GroupNode, order: IntArray) -> None:
        """Elastic pods beyond the minima: one at a time, in index order, on the first row of the
        leaf's chosen rows with room; a leaf stops at its first pod that fits nowhere."""
        leaves = {leaf.name: leaf for leaf in root.walk() if leaf.is_leaf}
        for name, rows in self.leaf_rows.items():
            leaf = leaves[name]
            rows = rows[np.argsort(order[rows], kind="stable")]
            for pod in self.progress.pending(leaf):
                if (leaf.leaf, pod.name) in self.where:
                    continue
                room = np.flatnonzero(capacity(self.space, rows, pod) > 0)
                if not len(room):
                    break
                row = int(rows[room[0]])
                self.charge(row, 1, self.ledger.vector(pod.requests))
                self.where[(leaf.leaf, pod.name)] = row
