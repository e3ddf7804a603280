"""Which domains the exact search (``exact``) tries for a group: read from the topology views of
its node space, by the group's required and preferred levels, the rows its running pods hold and
the capacity of each domain."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import numpy as np

from toposched.engine.core.members import GroupNode
from toposched.engine.core.space import NodeSpace, TopoView
from toposched.engine.exact.bounds import Runs, capacity, fits
from toposched.model import PodSpec
from toposched.topology import IntArray


class DomainChoices:
    """The domain questions of one exact search over ``space``."""

    def __init__(self, space: NodeSpace) -> None:
        self.space = space

    def _view(self, node: GroupNode) -> TopoView | None:
        return self.space.views.get(node.topology if node.topology is not None else self.space.default)

    def held_apart(self, root: GroupNode, held: Mapping[str, IntArray]) -> bool:
        """Whether a group's running pods already span several domains of its required level
        (or sit outside the level): no placement honours it, even one that drops the group."""
        for node in root.walk():
            rows = held[node.name]
            if node.required is None or not len(rows):
                continue
            view = self._view(node)
            level = view.tree.level_index(node.required) if view is not None else None
            if view is None or level is None:
                continue  # the faithful refusal names the missing level
            codes = set(view.codes[level][rows].tolist())
            if len(codes) != 1 or -1 in codes:
                return True
        return False

    def one_domain(self, node: GroupNode, rows: IntArray) -> bool:
        """``rows`` lie in one domain of the level ``node`` requires."""
        view = self._view(node)
        level = view.tree.level_index(node.required) if view is not None and node.required else None
        if view is None or level is None:
            return True  # ``slice_room`` does not count such a group
        codes = view.codes[level][rows]
        return bool((codes == codes[0]).all()) if len(codes) else True

    def options(
        self, node: GroupNode, rows: IntArray, held: IntArray, lowest: int | None, runs: Runs
    ) -> list[tuple[int, IntArray]]:
        """The (domain, rows) to try for ``node``, preferred first, each big enough for ``runs``
        (its pods); domain -1 when the rows are not one domain of the required level. ``held``:
        the rows its running pods hold; ``lowest``: the domain of the interchangeable sibling
        placed just before it, if any."""
        if not node.constrained:
            return [(-1, rows)]
        view = self._view(node)
        if view is None or (node.required is None and node.preferred is None):
            return []  # the faithful solver refuses these too; its reason stands
        req = view.tree.level_index(node.required) if node.required is not None else None
        pref = view.tree.level_index(node.preferred) if node.preferred is not None else None
        if (node.required is not None and req is None) or (node.preferred is not None and pref is None):
            return []
        valid = rows[view.member[rows]]
        if req is not None and len(held):  # one domain: ``held_apart`` refused the others
            valid = valid[view.codes[req][valid] == view.codes[req][held[0]]]
        if req is not None and lowest is not None and pref is None:
            valid = valid[view.codes[req][valid] >= lowest]  # permutations of twins: skip
        options: list[tuple[int, IntArray]] = []
        if pref is not None and (req is None or pref > req):
            fine = self.by_domain(valid, view.codes[pref], runs)
            options += [(-1 if req is None else int(view.codes[req][part[0]]), part) for _, part in fine]
        if req is not None:
            options += self.by_domain(valid, view.codes[req], runs)
        elif fits(self.space, valid, runs):
            options.append((-1, valid))
        return options

    def by_domain(self, rows: IntArray, codes: IntArray, runs: Runs) -> list[tuple[int, IntArray]]:
        """``rows`` split by domain, the domains that fit ``runs``, tightest first (ties by domain)."""
        keys = codes[rows]
        rows, keys = rows[keys >= 0], keys[keys >= 0]
        domains, inverse = np.unique(keys, return_inverse=True)
        fit = np.ones(len(domains), dtype=np.bool_)
        room = np.zeros(len(domains), dtype=np.int64)
        for run in runs:
            per = np.bincount(inverse, weights=capacity(self.space, rows, run[0]), minlength=len(domains))
            fit &= per >= len(run)
            room += per.astype(np.int64)
        by_domain = np.argsort(inverse, kind="stable")
        starts = np.concatenate(([0], np.cumsum(np.bincount(inverse, minlength=len(domains)))))
        return [
            (int(domains[d]), rows[by_domain[starts[d] : starts[d + 1]]])
            for d in np.lexsort((domains, room)).tolist()
            if fit[d]
        ]

    def split_blind(
        self,
        rows: IntArray,
        rest: Sequence[tuple[GroupNode, IntArray]],
        pod: PodSpec,
        bound: Callable[[GroupNode], Runs],
    ) -> bool:
        """Whether the capacity bounds of ``rest`` come out the same for every split of pods like
        ``pod`` over ``rows``: every pod still to place has that shape (one pod of it takes exactly
        one from a node's count of them, wherever it goes), every group's rows hold all of
        ``rows`` or none of them, and a group that requires a level (whose domains
        ``slice_room`` counts apart) sees ``rows`` inside one of its domains. ``bound``: the pods
        a group needs for sure, per shape run."""
        shape = pod.shape
        for node, task_rows in rest:
            if any(run[0].shape != shape for run in bound(node)):
                return False
            if task_rows is not rows:
                inside = np.isin(rows, task_rows)
                if not inside.any():
                    continue
                if not inside.all():
                    return False
            if node.required is not None and not self.one_domain(node, rows):
                return False
        return True
