"""What a placement takes per node, summed from the rows the solver chose.

Committing a placement books what its pods take on each node. Read pod by pod (a record and a
dictionary entry each), that costs several times the placement itself for a large gang. The
placements of Kueue's solver keep, per PodSet, the tree rows of its pods (``PodRows``), so the
sum is taken over those arrays: one count per node and pod shape, and one ``Resources`` per
distinct amount, shared by the nodes that take the same.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

import numpy as np

from toposched.engine.core.output import ordered_pods, tally
from toposched.model import Gang, Group, LazyRecords, PodPlacement, Resources
from toposched.snapshot import per_slot_requests
from toposched.topology import IntArray, TopologyTree


class PodRows(LazyRecords[PodPlacement]):
    """A placement's pod records, built when first read (``LazyRecords``), and what they are
    built from: per leaf group, the tree rows of its placed pods in rank order (its first
    ``len(rows)`` pods by index)."""

    __slots__ = ("parts", "tree")

    def __init__(
        self,
        build: Callable[[], Iterable[PodPlacement]],
        size: int,
        tree: TopologyTree,
        parts: tuple[tuple[Group, IntArray], ...],
    ) -> None:
        super().__init__(build, size)
        self.tree = tree
        self.parts = parts

    def of(self, gang: Gang) -> bool:
        """Whether every group placed is one of ``gang``'s leaves (``usage_of`` counts those)."""
        leaves = {id(leaf) for leaf in gang.leaves()}
        return all(id(group) in leaves for group, _ in self.parts)

    def usage(self) -> dict[str, Resources]:
        """Per node name, what the placed pods take there, ``pods`` slot included (what
        ``usage_of`` gives); nodes that take the same share one value."""
        shapes: dict[Resources, int] = {}
        rows: list[IntArray] = []
        codes: list[IntArray] = []
        for group, placed in self.parts:
            count = min(len(group.pods), len(placed))
            if not count:
                continue
            if group.same_shape:  # every pod has the first one's requests: no pod is read
                code = shapes.setdefault(group.pods[0].requests, len(shapes))
                codes.append(np.full(count, code, dtype=np.int64))
            else:
                found = (shapes.setdefault(pod.requests, len(shapes)) for pod in ordered_pods(group)[:count])
                codes.append(np.fromiter(found, dtype=np.int64, count=count))
            rows.append(placed[:count])
        if not shapes:
            return {}
        vectors = [per_slot_requests(shape) for shape in shapes]
        kinds = len(shapes)
        keys, counts = tally(
            np.concatenate(rows) * kinds + np.concatenate(codes), len(self.tree.nodes) * kinds
        )
        node_rows, shape_codes = np.divmod(keys, kinds)
        names: list[str] = self.tree.node_name_array[node_rows].tolist()
        if kinds == 1:  # the usual case: one value per distinct count of pods
            one = vectors[0]
            by_count: dict[int, Resources] = {}
            values = [
                by_count.get(count) or by_count.setdefault(count, _times(one, count))
                for count in counts.tolist()
            ]
            return dict(zip(names, values, strict=True))
        summed: dict[str, dict[str, int]] = {}
        for name, code, count in zip(names, shape_codes.tolist(), counts.tolist(), strict=True):
            into = summed.setdefault(name, {})
            for resource, amount in vectors[code].items():
                into[resource] = into.get(resource, 0) + amount * count
        shared: dict[tuple[tuple[str, int], ...], Resources] = {}
        out: dict[str, Resources] = {}
        for name, amounts in summed.items():
            key = tuple(sorted(amounts.items()))
            out[name] = shared.get(key) or shared.setdefault(key, Resources(amounts))
        return out


def _times(amounts: dict[str, int], count: int) -> Resources:
    return Resources({resource: amount * count for resource, amount in amounts.items()})
