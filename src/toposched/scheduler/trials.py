"""Would a gang fit if some gangs holding capacity were gone? Preemption and reservations ask
this of the engine itself: the gang is placed by the cycle's session, under its own policy and
search, on copies of the cycle's snapshots with those gangs' bookings given back. So a plan is
only made when the same placement search admits the gang on what would be left, with no node
over-committed.

Also here: the domains a gang must fit inside (``Domains``), which both search over, and the
GPUs free and booked in each.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from toposched.engine import PlacementSession, SearchBudget
from toposched.model import Gang, Placement, Resources
from toposched.snapshot import Snapshot


@dataclass(slots=True)
class Ask:
    """One gang's trials: the gang, the cycle's snapshots it is placed on (``snapshot`` and, by
    topology name, ``snapshots``), its policy, the session, and what is left of the trials'
    budget (``trials`` placements, and the ``deadline`` on the session's clock). ``reserved``:
    nodes a reservation keeps from this gang, with ``booked`` (the bookings by workload), so
    what a released gang frees on them is not offered to it."""

    gang: Gang
    snapshot: Snapshot
    snapshots: Mapping[str, Snapshot]
    policy: str
    session: PlacementSession
    trials: int
    deadline: float
    tried: int = 0
    # Nodes a reservation keeps (``reservations``): what a released gang frees there stays out.
    reserved: frozenset[str] = frozenset()
    booked: Mapping[int, Mapping[str, Resources]] = field(default_factory=dict)

    @property
    def spent(self) -> bool:
        """No trial is left: the count or the time is used up."""
        return self.tried >= self.trials or self.session.clock() >= self.deadline

    def fits_without(self, released: Iterable[int]) -> Placement | None:
        """The gang's placement with the bookings of ``released`` given back, or None when it does
        not fit (or no trial is left). The cycle's snapshots are not changed."""
        if self.spent:
            return None
        self.tried += 1
        released = list(released)
        gone = [str(w) for w in released]
        copies: dict[int, Snapshot] = {}

        def copy(snapshot: Snapshot) -> Snapshot:
            kept = copies.get(id(snapshot))
            if kept is None:
                kept = copies[id(snapshot)] = snapshot.clone()
                for workload, key in zip(released, gone, strict=True):
                    kept.remove_usage(key)
                    on_reserved = {
                        n: r for n, r in self.booked.get(workload, {}).items() if n in self.reserved
                    }
                    if on_reserved:
                        kept.add_usage(f"reserved-{key}", on_reserved)
            return kept

        main = copy(self.snapshot)
        others = {name: copy(s) for name, s in self.snapshots.items()}
        session = self.session
        left = max(0.0, self.deadline - session.clock())
        budget: SearchBudget = session.budget(min(session.options.seconds, left))
        result = session.place(self.gang, main, others, policy=self.policy, budget=budget, probe=False)
        return result if isinstance(result, Placement) else None


def required_level(gang: Gang) -> str | None:
    """The level one of whose domains must hold the whole gang: the coarsest required level on
    the chain of single groups from the root (a gang of several groups, each with its own
    constraint, may span domains); None when there is none."""
    levels: list[str] = []
    group = gang.root
    while True:
        if group.required is not None and group.topology in (None, gang.topology):
            levels.append(group.required)
        if len(group.children) != 1:
            break
        group = group.children[0]
    return levels[0] if levels else None


def gang_gpus(gang: Gang, gpu: str) -> int:
    """The GPUs every pod of the gang requests together."""
    return sum(pod.requests.get(gpu, 0) for leaf in gang.leaves() for pod in leaf.pods)


class Domains:
    """The domains a gang must fit inside, on the cycle's snapshot: each domain of its required
    level, or the whole cluster as one domain; with the free GPUs of each and the node names."""

    def __init__(self, gang: Gang, snapshot: Snapshot, gpu: str) -> None:
        tree = snapshot.tree
        level = required_level(gang)
        index = tree.level_index(level) if level is not None else None
        count = len(tree.nodes)
        if index is None:
            self.of_node = np.zeros(count, dtype=np.int64)
            self.names: list[str] = ["(cluster)"]
        else:
            self.of_node = np.asarray(tree.node_domain[index], dtype=np.int64)
            self.names = ["/".join(tree.path(index, d)) for d in range(tree.count(index))]
        self.level = level if index is not None else None
        column = snapshot.columns.get(gpu)
        free = (
            np.zeros(count, dtype=np.int64)
            if column is None
            else np.maximum(snapshot.free[:, column], 0).astype(np.int64)
        )
        self.free = np.bincount(self.of_node, weights=free, minlength=len(self.names)).astype(np.int64)
        self._row = {name: row for row, name in enumerate(tree.node_names)}

    def __len__(self) -> int:
        return len(self.names)

    def domain_of(self, node: str) -> int | None:
        """The domain a node is in (None: not a member of the snapshot's tree)."""
        row = self._row.get(node)
        return None if row is None else int(self.of_node[row])

    def split(self, usage: Mapping[str, Resources], gpu: str) -> dict[int, int]:
        """A booking's GPUs per domain it has nodes in (a domain with none of its GPUs but a node
        is listed with 0: its pods there take other resources)."""
        out: dict[int, int] = {}
        for node, resources in usage.items():
            domain = self.domain_of(node)
            if domain is not None:
                out[domain] = out.get(domain, 0) + resources.get(gpu, 0)
        return out


def by_domain(
    domains: Domains, usages: Mapping[int, Mapping[str, Resources]], gpu: str, among: Sequence[int]
) -> dict[int, dict[int, int]]:
    """For each domain, the workloads of ``among`` with nodes in it and their GPUs there."""
    out: dict[int, dict[int, int]] = {}
    for workload in among:
        usage = usages.get(workload)
        if usage is None:
            continue
        for domain, gpus in domains.split(usage, gpu).items():
            out.setdefault(domain, {})[workload] = gpus
    return out
