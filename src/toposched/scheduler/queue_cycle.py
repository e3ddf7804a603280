"""The queues in one cycle: the order in which admission tries the pending gangs, and the quota
check before each is placed (``queue_quotas``).

Order: across queues by weighted dominant-resource share, level by level of the queue tree
(KAI's hierarchy): among the top-level queues with gangs waiting, the one using least past its
quota per weight; then among its children, and so on down to the queue whose gang goes next
(ties by the place of their first waiting gang in the cycle's order); within a queue by
priority (rising with the wait: ``aging``), then arrival. Shares move as the cycle admits gangs,
so the queue to serve next is chosen again after each one (DRF's progressive filling). Every pending gang is still tried once per cycle.

A workload's queue comes from its compiled gang (``QueueTree.queue_of``; gangs are compiled once
and cached by the loop); one that cannot be compiled counts as ``default`` until its own attempt
reports why.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import replace

from toposched.emit.result import reason_to_json
from toposched.model import DEFAULT_QUEUE, Gang, QueueTree, Resources, SpecError
from toposched.scheduler import quota_victims
from toposched.scheduler.preemption import Contender, PreemptionRule
from toposched.scheduler.queue_quotas import Fit, Holder, QueueAccounts, booked_total, gang_request
from toposched.scheduler.state import State
from toposched.store import Json, QueueEntry, WorkloadState


def queue_tree(state: State) -> QueueTree:
    """The stored queues as a tree (they are checked as a tree when stored)."""
    try:
        return QueueTree.of(state.store.list_queues())
    except SpecError:  # written by another program around the checks: serve them all as default
        return QueueTree.of(())


def queue_name(state: State, tree: QueueTree, workload: int) -> str:
    """The queue of a pending or holding workload, from its compiled gang (cached by the loop).
    A workload that is gone or does not compile counts as ``default``."""
    cached = state.gangs.get(workload)
    if cached is not None:
        return tree.queue_of(cached[1])
    with state.lock:
        try:
            record = state.store.get_workload(workload)
            return tree.queue_of(state.gang_of(record, state.topology_of(record)))
        except Exception:  # its own attempt (or health check) reports what is wrong with it
            return DEFAULT_QUEUE


class QueueCycle:
    """One cycle's queue accounts, order and quota checks."""

    def __init__(
        self,
        state: State,
        accounts: QueueAccounts,
        capacity: Mapping[str, int],
        queue_of: dict[int, str],
        totals: dict[int, Resources],
    ) -> None:
        self._state = state
        self._holders: list[Holder] | None = None  # read at the first reclaim, less those evicted after
        self._fresh: set[int] = set()  # admitted by this cycle: never reclaimed in it
        self._priorities: dict[int, int] = {}  # each pending gang's own priority, as a preemptor
        self._position: dict[int, int] = {}  # each pending gang's place in the cycle's order
        self._walk: _FairWalk | None = None  # the order's walk, once ``order`` has started
        self._ranked_by_queue: dict[str, list[Holder]] | None = None  # ``_ranked``'s, once a cycle
        self._totals = totals  # each holding gang's bookings summed
        self.accounts = accounts
        self.capacity = capacity
        self.queue_of = queue_of
        self.reclaims: dict[int, list[int]] = {}  # pending workload -> borrowed gangs to evict for it
        self.crowded: set[int] = set()  # pending workloads refused only for what their tree holds

    @classmethod
    def open(
        cls, state: State, booked: Mapping[int, Mapping[str, Resources]], pending: Sequence[QueueEntry]
    ) -> QueueCycle:
        """The queues as stored, with the usage of the gangs in ``booked`` (the cycle's view).
        With no queue configured (only an unconfigured ``default``) nothing is counted: every
        gang is in one unlimited queue, in priority then arrival order, as without queues."""
        tree = state.queue_tree = queue_tree(state)
        capacity = state.queue_totals.capacity(state.nodes.members)
        if len(tree.queues) == 1 and not tree.queues[DEFAULT_QUEUE].resources:
            return cls(state, QueueAccounts(tree, {}), capacity, {}, {})
        queue_of = {w: queue_name(state, tree, w) for w in (*booked, *(e.id for e in pending))}
        totals = state.queue_totals.gangs(booked)
        return cls(state, QueueAccounts.of(tree, queue_of, totals), capacity, queue_of, totals)

    def order(self, pending: Sequence[QueueEntry]) -> Iterator[QueueEntry]:
        """``pending`` (given in the cycle's order within a queue: priority with aging, then
        arrival) in hierarchical fair-share order, chosen afresh after each gang (see the
        module and ``_FairWalk``)."""
        self._position = {entry.id: at for at, entry in enumerate(pending)}
        lanes: dict[str, deque[QueueEntry]] = {}
        for entry in pending:
            lanes.setdefault(self.queue_of.get(entry.id, DEFAULT_QUEUE), deque()).append(entry)
        walk = self._walk = _FairWalk(self.accounts, self.capacity, self._position, lanes)
        while (chosen := walk.next_lane()) is not None:
            yield walk.take(chosen)

    def refusal(self, workload: int, gang: Gang, priority: int | None = None) -> dict[str, Json] | None:
        """None when the gang fits its queue's quotas now; else the explanation of why it
        waits, with the gangs to evict for it when its queue may and they make it fit: the
        borrowed gangs to reclaim, else (``priority``: the gang's own) lower-priority gangs
        of its own queue."""
        queue = self.queue_of.get(workload) or self.accounts.tree.queue_of(gang)
        self.queue_of[workload] = queue
        if priority is not None:
            self._priorities[workload] = priority
        request = gang_request(gang)
        verdict = self.accounts.check(queue, request)
        if verdict.fit is Fit.FITS:
            return None
        reason, extra = f"waits for quota: {verdict.reason}", {"queue": queue, "quota": dict(verdict.detail)}
        if verdict.fit is Fit.CROWDED:
            self.crowded.add(workload)
        if verdict.fit is Fit.RECLAIM:
            victims = quota_victims.reclaim(self.accounts, queue, verdict.shortfall, self._holding())
            if victims:
                self.reclaims[workload] = victims
                return reason_to_json(reason, **extra, reclaim=victims)
        rank = self._priorities.get(workload)
        if rank is not None:
            victims = quota_victims.lower_in_queue(self.accounts, queue, request, rank, self._ranked(queue))
            if victims:
                self.reclaims[workload] = victims
                return reason_to_json(reason, **extra, preempt=victims)
        return reason_to_json(reason, **extra)

    def still_borrowed(self, workload: int, gang: Gang, before: Sequence[int]) -> Sequence[int]:
        """The gangs still to evict for ``workload``'s quota now that others were evicted for
        it: none when its quota fits, else those ``refusal`` names, else ``before`` (the gangs
        named before the evictions, which cover its shortfall on their own)."""
        if self.refusal(workload, gang) is None:
            return []
        return self.reclaims.pop(workload, None) or before

    def evictable_together(self, workload: int, victims: Sequence[int]) -> bool:
        """Whether ``workload``'s gang may evict all of ``victims`` at once: those of another
        queue only while that queue still uses past its quota, each in turn (smallest first),
        as Kueue checks again after each removal, so a reclaim never takes a queue below its
        quota. Victims of its own queue are lower-priority ones, evicted whatever it holds."""
        mine = self.queue_of.get(workload, DEFAULT_QUEUE)
        taken: dict[str, list[Resources]] = {}
        for victim in victims:
            queue = self.queue_of.get(victim, DEFAULT_QUEUE)
            if queue != mine:
                taken.setdefault(queue, []).append(self._totals.get(victim, Resources()))
        return all(quota_victims.borrows_until_last(self.accounts, q, usages) for q, usages in taken.items())

    def admitted(self, workload: int, usage: Mapping[str, Resources]) -> None:
        """Count an admission of this cycle in its queue."""
        total = booked_total(usage)
        queue = self.queue_of.get(workload, DEFAULT_QUEUE)
        self.accounts.charge(queue, total)
        self._totals[workload] = total
        self._fresh.add(workload)

    def released(self, workload: int) -> None:
        """Give back in its queue what a gang preempted or reclaimed in this cycle held."""
        total = self._totals.pop(workload, None)
        if total is not None and self.queue_of:
            queue = self.queue_of.get(workload, DEFAULT_QUEUE)
            self.accounts.release(queue, total)
            if self._walk is not None:
                self._walk.changed(queue)
        if self._holders is not None:
            self._holders = [h for h in self._holders if h.workload != workload]
        if self._ranked_by_queue is not None:
            for queue, ranked in self._ranked_by_queue.items():
                self._ranked_by_queue[queue] = [h for h in ranked if h.workload != workload]

    def rule(self, base: PreemptionRule) -> PreemptionRule:
        """The cycle's preemption rule: with queues configured each queue's ``preemption``
        setting (``quota_victims.may_preempt``), else ``base`` (the scheduler's rule)."""
        return QueueRule(self, base) if self.queue_of else base

    def _holding(self) -> list[Holder]:
        """The gangs reclaim may evict: those holding capacity but the ones this cycle admitted
        (the cycle spares them, so naming them would admit a gang whose quota was never given
        back); priority and arrival from the store, read once a cycle; what they booked from
        the cycle's bookings."""
        if self._holders is None:
            holding = self._state.store.queue((WorkloadState.ADMITTED, WorkloadState.RUNNING))
            self._holders = [
                Holder(
                    entry.id,
                    self.queue_of.get(entry.id, DEFAULT_QUEUE),
                    entry.priority,
                    entry.sequence,
                    self._totals.get(entry.id, Resources()),
                )
                for entry in holding
                if entry.id not in self._fresh  # gangs admitted later are not in what was read
            ]
        return self._holders

    def _ranked(self, queue: str) -> list[Holder]:
        """The gangs of ``queue`` that ``_holding`` lists, with the rank each counts with as a
        victim (``aging``). Grouped once a cycle, as every refused gang asks (those admitted
        since were not in the store when ``_holding`` read it; those evicted since are
        dropped by ``released``)."""
        if self._ranked_by_queue is None:
            held = self._state.holding.held
            self._ranked_by_queue = {}
            for h in self._holding():
                ranked = replace(h, priority=held[h.workload].priority) if h.workload in held else h
                self._ranked_by_queue.setdefault(h.queue, []).append(ranked)
        return self._ranked_by_queue.get(queue, [])


class _FairWalk:
    """One cycle's way down the queue tree to the queue whose gang goes next: from the top, at
    each level the queue of least weighted share among those with gangs waiting below it (ties:
    the earliest waiting gang), down to a queue whose own gangs waited longer than its
    children's. A queue's key is kept until a gang below it is taken."""

    def __init__(
        self,
        accounts: QueueAccounts,
        capacity: Mapping[str, int],
        position: Mapping[int, int],
        lanes: dict[str, deque[QueueEntry]],
    ) -> None:
        self.accounts, self.capacity, self.position, self.lanes = accounts, capacity, position, lanes
        self.waiting: dict[str, int] = {}  # gangs waiting in each queue's subtree
        for name, lane in lanes.items():
            for node in accounts.tree.path(name):
                self.waiting[node.name] = self.waiting.get(node.name, 0) + len(lane)
        self.keys: dict[str, tuple[float, int, str]] = {}
        self.roots = sorted(n for n, q in accounts.tree.queues.items() if q.parent is None)

    def next_lane(self) -> str | None:
        """The queue whose next gang goes; None when no gang is left."""
        candidates = [name for name in self.roots if self.waiting.get(name)]
        while candidates:
            best = min(candidates, key=self._key)
            below = self._below(best)
            own = self.lanes.get(best)
            if own and (not below or self.position[own[0].id] <= min(self._key(c)[1] for c in below)):
                return best
            candidates = below
        return None

    def take(self, name: str) -> QueueEntry:
        """The next gang of queue ``name``; the keys of the queues above it are made again."""
        for node in self.accounts.tree.path(name):
            self.waiting[node.name] -= 1
            self.keys.pop(node.name, None)
        return self.lanes[name].popleft()

    def changed(self, name: str) -> None:
        """Queue ``name``'s usage changed (a gang of it evicted): its keys and those above it
        are made again."""
        for node in self.accounts.tree.path(name):
            self.keys.pop(node.name, None)

    def _below(self, name: str) -> list[str]:
        return [c for c in self.accounts.tree.children.get(name, ()) if self.waiting.get(c)]

    def _key(self, name: str) -> tuple[float, int, str]:
        """(weighted share, place of the first gang waiting below it, name)."""
        key = self.keys.get(name)
        if key is None:
            own = self.lanes.get(name)
            first = [self.position[own[0].id]] if own else []
            first += [self._key(c)[1] for c in self._below(name)]
            key = self.keys[name] = (self.accounts.share(name, self.capacity), min(first), name)
        return key


class QueueRule:
    """Preemption by the queues' settings: within a queue, lower priority (``lowerPriority``);
    across queues of one tree, gangs of queues past their quota (``reclaimBorrowed``)."""

    def __init__(self, queues: QueueCycle, base: PreemptionRule) -> None:
        self._queues, self._base = queues, base
        self._requests: dict[int, Resources] = {}  # each preemptor gang's request, summed once

    def _queue(self, contender: Contender) -> str:
        return self._queues.queue_of.get(contender.workload, DEFAULT_QUEUE)

    def may_preempt(self, preemptor: Contender, victim: Contender) -> bool:
        accounts = self._queues.accounts
        mine, theirs = self._queue(preemptor), self._queue(victim)
        request = self._request(preemptor)
        return quota_victims.may_preempt(accounts, mine, preemptor.priority, theirs, victim.priority, request)

    def _request(self, preemptor: Contender) -> Resources | None:
        if preemptor.gang is None:
            return None
        request = self._requests.get(preemptor.workload)
        if request is None:
            request = self._requests[preemptor.workload] = gang_request(preemptor.gang)
        return request

    def reason(self, preemptor: Contender, victim: Contender) -> str:
        mine, theirs = self._queue(preemptor), self._queue(victim)
        if mine == theirs:
            return self._base.reason(preemptor, victim)
        return f"queue {theirs} uses quota it borrowed, which queue {mine} reclaims"
