"""What the service shows of its queues: each queue's spec with its usage, quota, what it
borrows, its fair share and its gangs, derived from the stored bookings at the time of asking
(the same sums the cycle makes; nothing is kept that could drift)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from toposched.model import Resources, SchedulingQueue
from toposched.scheduler.queue_cycle import queue_name, queue_tree
from toposched.scheduler.queue_quotas import GangUsageSums, QueueAccounts
from toposched.scheduler.state import State
from toposched.store import WorkloadState


@dataclass(frozen=True, slots=True)
class QueueStatus:
    """One queue now. ``usage``, ``quota`` and ``borrowed`` include the queues below it;
    ``pending`` and ``admitted`` count the gangs of the queue itself."""

    queue: SchedulingQueue
    usage: Resources
    quota: Resources
    borrowed: Resources
    share: float
    pending: int
    admitted: int


def queue_statuses(state: State) -> list[QueueStatus]:
    """Every queue (``default`` included), sorted by name."""
    store = state.store
    tree = queue_tree(state)
    booked = store.reservations_by_workload()
    pending = [entry.id for entry in store.queue((WorkloadState.PENDING,))]
    queue_of = {w: queue_name(state, tree, w) for w in (*booked, *pending)}
    summed = GangUsageSums()  # nothing kept: summed afresh from what the store holds now
    accounts = QueueAccounts.of(tree, queue_of, summed.gangs(booked))
    capacity = summed.capacity(store.get_nodes())
    waiting = Counter(queue_of[w] for w in pending)
    holding = Counter(queue_of[w] for w in booked)
    return [
        QueueStatus(
            queue,
            accounts.used[queue.name],
            accounts.quota[queue.name],
            accounts.borrowed(queue.name),
            accounts.share(queue.name, capacity),
            waiting[queue.name],
            holding[queue.name],
        )
        for queue in tree.sorted_queues()
    ]
