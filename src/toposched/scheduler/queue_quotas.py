"""Quota accounting over the queue tree: what each queue uses, whether a gang fits its queue's
quotas, and each queue's weighted dominant-resource share (which gangs a quota lets a gang
evict: ``quota_victims``).

The model is Kueue's cohort borrowing, with KAI's queue hierarchy mapped onto it:

- a queue's *usage* is what the gangs holding capacity in it and in the queues below it have
  booked (``QueueAccounts.of`` sums the bookings; nothing else is counted, so it cannot drift);
- its *quota* is its guaranteed amount plus its children's quotas (a cohort lends what its
  members are guaranteed and leave unused);
- a gang fits when, on every resource it asks for, no queue from its own up to the top-level one
  passes its ``limit``, and the top-level queue stays within its quota: anything a queue uses
  past its own quota is borrowed from what its siblings leave unused. A top-level queue has no
  siblings to borrow from. Only resources some queue of the tree names are counted (an
  unconfigured ``default`` queue is unlimited).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum

from toposched.model import (
    DEFAULT_QUEUE,
    EMPTY,
    Gang,
    Node,
    QueueTree,
    Resources,
    format_quantity,
)
from toposched.snapshot import per_slot_requests


class Fit(StrEnum):
    FITS = "fits"
    RECLAIM = "reclaim"  # within its queue's quota, but borrowers hold what it is guaranteed
    CROWDED = "crowded"  # it would borrow, and the queues of its tree leave too little unused
    REFUSED = "refused"  # past a limit, or past the quota of a tree with no parent


@dataclass(frozen=True, slots=True)
class Verdict:
    fit: Fit
    reason: str = ""
    shortfall: Resources = EMPTY  # what the top-level queue's quota is short by
    detail: Mapping[str, str] = field(default_factory=dict)  # the amounts now: used, asks, unused


@dataclass(frozen=True, slots=True)
class Holder:
    """A gang holding capacity, as reclaim needs it."""

    workload: int
    queue: str
    priority: int
    sequence: int
    usage: Resources


class QueueAccounts:
    """Usage and quotas of every queue for one cycle; ``charge`` counts a gang admitted in it."""

    def __init__(self, tree: QueueTree, own_usage: Mapping[str, Resources]) -> None:
        self.tree = tree
        self.own: dict[str, Resources] = {name: Resources() for name in tree.queues}
        for name, usage in own_usage.items():
            if name in self.own:
                self.own[name] = usage
        self.used: dict[str, Resources] = {}
        self.quota: dict[str, Resources] = {}
        self.covered: dict[str, frozenset[str]] = {}  # per top-level queue: resources counted
        for name in tree.queues:
            if tree.queues[name].parent is None:
                self._sum(name, name)

    @classmethod
    def of(
        cls, tree: QueueTree, queue_of: Mapping[int, str], totals: Mapping[int, Mapping[str, int]]
    ) -> QueueAccounts:
        """Accounts from what each gang holding capacity has booked in all (``totals``, by
        workload; ``booked_total``) and the queue of each (``queue_of``; one not in the tree
        counts as ``default``)."""
        own: dict[str, dict[str, int]] = {}
        for workload, total in totals.items():
            queue = queue_of.get(workload, DEFAULT_QUEUE)
            amounts = own.setdefault(queue if queue in tree.queues else DEFAULT_QUEUE, {})
            for resource, amount in total.items():
                amounts[resource] = amounts.get(resource, 0) + amount
        return cls(tree, {name: Resources(amounts) for name, amounts in own.items()})

    def _sum(self, name: str, top: str) -> tuple[Resources, Resources, frozenset[str]]:
        queue = self.tree.queues[name]
        used, quota, covered = self.own[name], queue.guaranteed, queue.resources
        for child in self.tree.children.get(name, ()):
            child_used, child_quota, child_covered = self._sum(child, top)
            used, quota, covered = used + child_used, quota + child_quota, covered | child_covered
        self.used[name], self.quota[name] = used, quota
        if name == top:
            self.covered[top] = covered
        return used, quota, covered

    def check(self, queue: str, request: Mapping[str, int]) -> Verdict:
        """Whether a gang asking for ``request`` fits the quotas of ``queue`` now. The reason
        names the queue, resource and quota, which change only with the queues; the amounts of
        the moment are in ``detail``."""
        path = self.tree.path(queue)
        for node in path:
            for resource, amount in request.items():
                most = node.limit_of(resource)
                if amount and most is not None and self.used[node.name][resource] + amount > most:
                    return Verdict(
                        Fit.REFUSED,
                        f"queue {node.name} would pass its limit of {_shown(most, resource)} {resource}",
                        detail=self._detail(node.name, resource, amount),
                    )
        top = path[-1].name
        short = {
            r: self.used[top][r] + a - self.quota[top][r]
            for r, a in request.items()
            if a and r in self.covered[top] and self.used[top][r] + a > self.quota[top][r]
        }
        if not short:
            return Verdict(Fit.FITS)
        own = path[0].name
        resource = sorted(short)[0]
        guaranteed = f"{_shown(self.quota[own][resource], resource)} {resource}"
        detail = self._detail(own, resource, request[resource], top)
        if all(self.used[own][r] + request[r] <= self.quota[own][r] for r in short):
            reason = (
                f"queue {own} is within its guaranteed {guaranteed}, but the queues under {top} borrowed it"
            )
            return Verdict(Fit.RECLAIM, reason, Resources(short), detail)
        if own == top:
            reason = f"queue {own} would pass its guaranteed {guaranteed} and has no parent to borrow from"
            return Verdict(Fit.REFUSED, reason, detail=detail)
        reason = (
            f"queue {own} would borrow past its guaranteed {guaranteed} more than the queues "
            f"under {top} leave unused"
        )
        return Verdict(Fit.CROWDED, reason, detail=detail)

    def _detail(self, queue: str, resource: str, asks: int, top: str | None = None) -> dict[str, str]:
        detail = {
            "resource": resource,
            "used": _shown(self.used[queue][resource], resource),
            "asks": _shown(asks, resource),
        }
        if top is not None and top != queue:
            detail["unused"] = _shown(max(0, self.quota[top][resource] - self.used[top][resource]), resource)
        return detail

    def charge(self, queue: str, usage: Mapping[str, int]) -> None:
        """Count a gang admitted in ``queue`` in it and every queue above it."""
        name = queue if queue in self.tree.queues else DEFAULT_QUEUE
        self.own[name] = self.own[name] + usage
        for node in self.tree.path(name):
            self.used[node.name] = self.used[node.name] + usage

    def release(self, queue: str, usage: Mapping[str, int]) -> None:
        """Give back what a gang of ``queue`` held (it was preempted or reclaimed)."""
        name = queue if queue in self.tree.queues else DEFAULT_QUEUE
        self.own[name] = self.own[name] - usage
        for node in self.tree.path(name):
            self.used[node.name] = self.used[node.name] - usage

    def within_quota(self, queue: str, request: Mapping[str, int]) -> bool:
        """Whether ``queue`` stays within its quota (its guarantee and its children's) with
        ``request`` added, on the resources its tree counts."""
        used, quota = self.used[queue], self.quota[queue]
        covered = self.covered[self.tree.top(queue)]
        return all(used[r] + request[r] <= quota[r] for r in request if r in covered)

    def borrowed(self, queue: str) -> Resources:
        """What ``queue`` (with the queues below it) uses past its quota, of the resources its
        tree counts."""
        used, quota = self.used[queue], self.quota[queue]
        covered = self.covered[self.tree.top(queue)]
        return Resources({r: used[r] - quota[r] for r in used if r in covered and used[r] > quota[r]})

    def share(self, queue: str, capacity: Mapping[str, int]) -> float:
        """The weighted dominant-resource share of what ``queue`` uses past its quota: the
        largest of (usage - quota) / cluster capacity over the resources, divided by the
        weight when positive. Below its quota the share is negative (it goes first)."""
        used, quota = self.used[queue], self.quota[queue]
        names = [r for r in (*used, *quota) if capacity.get(r, 0) > 0]
        if not names:
            return 0.0
        dominant = max((used[r] - quota[r]) / capacity[r] for r in names)
        return dominant / self.tree.queues[queue].weight if dominant > 0 else dominant


def gang_request(gang: Gang) -> Resources:
    """What a gang books in all, summed over its pods as bookings count them (``pods`` slot
    included), so a request and the usage it becomes once admitted are alike."""
    totals: dict[str, int] = {}
    for leaf in gang.leaves():
        for pod in leaf.pods:
            for resource, amount in per_slot_requests(pod.requests).items():
                totals[resource] = totals.get(resource, 0) + amount
    return Resources(totals)


class GangUsageSums:
    """What the queue accounts are summed from, kept by the loop between cycles so that a cycle
    sums only what changed: each holding gang's bookings over its nodes (made again only when
    the gang's bookings are another object: the cycle's view replaces them on every change),
    and the cluster's capacity (made again when the node set is another object)."""

    def __init__(self) -> None:
        self._gangs: dict[int, tuple[object, Resources]] = {}
        self._nodes: object = None
        self._capacity: dict[str, int] = {}

    def gangs(self, booked: Mapping[int, Mapping[str, Mapping[str, int]]]) -> dict[int, Resources]:
        """Each gang of ``booked`` with its bookings summed over its nodes."""
        kept: dict[int, tuple[object, Resources]] = {}
        for workload, per_node in booked.items():
            hit = self._gangs.get(workload)
            kept[workload] = (
                hit if hit is not None and hit[0] is per_node else (per_node, booked_total(per_node))
            )
        self._gangs = kept
        return {workload: total for workload, (_, total) in kept.items()}

    def capacity(self, nodes: Sequence[Node]) -> dict[str, int]:
        """Allocatable summed over ``nodes`` (the loop's node tuple: the same object while no
        node changed)."""
        if nodes is not self._nodes:
            totals: dict[str, int] = {}
            for node in nodes:
                for resource, amount in node.allocatable.items():
                    totals[resource] = totals.get(resource, 0) + amount
            self._nodes, self._capacity = nodes, totals
        return self._capacity


def booked_total(per_node: Mapping[str, Mapping[str, int]]) -> Resources:
    """One gang's bookings summed over its nodes."""
    totals: dict[str, int] = {}
    for usage in per_node.values():
        for resource, amount in usage.items():
            totals[resource] = totals.get(resource, 0) + amount
    return Resources(totals)


def _shown(amount: int, resource: str) -> str:
    return format_quantity(amount, resource)
