"""Which gangs a queue's quotas let a pending gang evict (Kueue's preemption within a cluster
queue and reclaim within a cohort, on ``QueueAccounts``):

- ``reclaim``: the borrowed gangs of other queues of its tree, when its own queue is within its
  guarantee and the tree's quota is lent out;
- ``lower_in_queue``: lower-priority gangs of its own queue, when that queue would pass a limit
  or the top-level quota;
- ``may_preempt``: whether the queue rule lets it evict one given gang, and
  ``borrows_until_last``: whether a set taken from one queue leaves it borrowing before each
  removal (Kueue checks again after each, so a queue is never taken below its quota).

Every choice is lowest priority then newest first, and minimal: a gang not needed to cover what
is short is dropped, the last chosen first.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from toposched.model import QueuePreemption
from toposched.scheduler.queue_quotas import Holder, QueueAccounts


def reclaim(
    accounts: QueueAccounts, queue: str, shortfall: Mapping[str, int], holders: Iterable[Holder]
) -> list[int]:
    """The borrowed gangs to evict so that ``queue`` gets back what it is guaranteed: gangs of
    other queues under the same top-level queue while their queue uses more than its quota of a
    short resource, lowest priority then newest first, until ``shortfall`` is covered. Gangs no
    larger than what their queue still borrows go first, so a queue gives back what it borrowed
    rather than more; then any gang still needed is dropped from the end (Kueue's minimal set).
    Empty when ``queue`` may not reclaim (its ``preemption``) or the borrowed gangs cannot cover
    the shortfall."""
    tree = accounts.tree
    if tree.queues[queue].preemption is not QueuePreemption.RECLAIM_BORROWED:
        return []
    family = set(tree.subtree(tree.top(queue))) - set(tree.subtree(queue))
    short = {r: a for r, a in shortfall.items() if a > 0}
    candidates = sorted(
        (h for h in holders if h.queue in family), key=lambda h: (h.priority, -h.sequence, h.workload)
    )
    used = {name: dict(accounts.used[name]) for name in family}
    chosen: list[Holder] = []
    for within_borrowed in (True, False):
        for holder in candidates:
            if holder in chosen or _covered(short, chosen):
                continue
            over = {r: used[holder.queue].get(r, 0) - accounts.quota[holder.queue][r] for r in short}
            if not any(over[r] > 0 and holder.usage[r] for r in short):
                continue
            if within_borrowed and any(holder.usage[r] > max(0, over[r]) for r in short):
                continue
            chosen.append(holder)
            for node in tree.path(holder.queue):
                if node.name in family:
                    for r, a in holder.usage.items():
                        used[node.name][r] = used[node.name].get(r, 0) - a
    return _fewest(short, chosen)


def lower_in_queue(
    accounts: QueueAccounts, queue: str, request: Mapping[str, int], priority: int, holders: Iterable[Holder]
) -> list[int]:
    """The lower-priority gangs of ``queue`` itself to evict so that a gang of ``priority``
    asking for ``request`` fits its quotas (Kueue's withinClusterQueue: its own usage is what
    passes a limit or the top-level quota): lowest priority then newest first, until what they
    hold covers the excess, then any not needed dropped from the end. Empty when the queue never
    preempts, nothing is in excess, or they cannot cover it. ``holders`` carry the rank each
    gang counts with as a victim."""
    if accounts.tree.queues[queue].preemption is QueuePreemption.NEVER:
        return []
    path = accounts.tree.path(queue)
    top = path[-1].name
    excess: dict[str, int] = {}
    for r, a in request.items():
        over = [
            accounts.used[n.name][r] + a - most for n in path if a and (most := n.limit_of(r)) is not None
        ]
        if a and r in accounts.covered[top]:
            over.append(accounts.used[top][r] + a - accounts.quota[top][r])
        if max(over, default=0) > 0:
            excess[r] = max(over)
    if not excess:
        return []
    candidates = sorted(
        (h for h in holders if h.queue == queue and h.priority < priority),
        key=lambda h: (h.priority, -h.sequence, h.workload),
    )
    chosen: list[Holder] = []
    for holder in candidates:
        if _covered(excess, chosen):
            break
        if any(holder.usage[r] for r in excess):
            chosen.append(holder)
    return _fewest(excess, chosen)


def borrows_until_last(accounts: QueueAccounts, queue: str, usages: Sequence[Mapping[str, int]]) -> bool:
    """Whether ``queue`` still uses past its quota before each of ``usages`` is taken from it,
    taken smallest first on what it borrows (the order that keeps it borrowing longest when it
    borrows one resource)."""
    left = dict(accounts.borrowed(queue))
    for usage in sorted(usages, key=lambda u: tuple(u.get(r, 0) for r in sorted(left))):
        if not any(amount > 0 for amount in left.values()):
            return False
        for resource in left:
            left[resource] -= usage.get(resource, 0)
    return True


def may_preempt(
    accounts: QueueAccounts,
    preemptor: str,
    preemptor_priority: int,
    victim: str,
    victim_priority: int,
    request: Mapping[str, int] | None = None,
) -> bool:
    """The queue rule for preemption: whether a pending gang of queue ``preemptor`` may evict a
    gang of queue ``victim``, by the preemptor queue's setting: ``never`` nothing;
    ``lowerPriority`` lower-priority gangs of its own queue; ``reclaimBorrowed`` those and the
    gangs of other queues under the same top-level queue while their queue uses more than its
    quota (what it borrowed), as long as the preemptor's queue stays within its own quota with
    the gang's ``request`` (Kueue's reclaimWithinCohort: a queue takes back what it is
    guaranteed, never more)."""
    setting = accounts.tree.queues[preemptor].preemption
    if setting is QueuePreemption.NEVER:
        return False
    if victim == preemptor:
        return victim_priority < preemptor_priority
    if setting is not QueuePreemption.RECLAIM_BORROWED or victim not in accounts.tree.queues:
        return False
    if request is not None and not accounts.within_quota(preemptor, request):
        return False
    same_tree = accounts.tree.top(victim) == accounts.tree.top(preemptor)
    return same_tree and victim not in accounts.tree.subtree(preemptor) and bool(accounts.borrowed(victim))


def _fewest(short: Mapping[str, int], chosen: list[Holder]) -> list[int]:
    """The workloads of ``chosen`` that cover ``short``, each not needed dropped, the last
    chosen first (Kueue's minimal set); empty when all of them do not cover it."""
    if not _covered(short, chosen):
        return []
    for holder in reversed(list(chosen)):
        rest = [h for h in chosen if h is not holder]
        if _covered(short, rest):
            chosen = rest
    return [h.workload for h in chosen]


def _covered(short: Mapping[str, int], chosen: Iterable[Holder]) -> bool:
    freed: dict[str, int] = {}
    for holder in chosen:
        for r in short:
            freed[r] = freed.get(r, 0) + holder.usage[r]
    return all(freed.get(r, 0) >= a for r, a in short.items())
