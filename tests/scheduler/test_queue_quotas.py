"""Quota accounting with hand-computed cases (``QueueAccounts``): borrowing from an idle sibling,
no borrowing past a limit or past what siblings leave unused, reclaim of borrowed gangs when a
queue needs its guarantee back, and the weighted dominant-resource share.

    org (guaranteed 0 GPU)          solo (4 GPU, no parent)     default (unconfigured)
    ├── a (8 GPU, limit 12)
    └── b (8 GPU)
"""

from __future__ import annotations

from typing import Any

import pytest

from toposched.model import QueueTree, Resources, SchedulingQueue
from toposched.scheduler.queue_quotas import Fit, Holder, QueueAccounts
from toposched.scheduler.quota_victims import borrows_until_last, lower_in_queue, may_preempt, reclaim

GPU = "nvidia.com/gpu"


def q(name: str, **fields: Any) -> SchedulingQueue:
    return SchedulingQueue.parse({"name": name, **fields})


def tree(b_preemption: str = "reclaimBorrowed") -> QueueTree:
    return QueueTree.of(
        [
            q("org"),
            q("a", parent="org", guaranteed={GPU: 8}, limit={GPU: 12}),
            q("b", parent="org", guaranteed={GPU: 8}, preemption=b_preemption, weight=3),
            q("solo", guaranteed={GPU: 4}),
        ]
    )


def gpus(n: int) -> Resources:
    return Resources({GPU: n, "pods": 1})


def accounts(used: dict[str, int], b_preemption: str = "reclaimBorrowed") -> QueueAccounts:
    return QueueAccounts(tree(b_preemption), {name: gpus(n) for name, n in used.items()})


def test_usage_and_quota_add_up_the_tree() -> None:
    acc = accounts({"a": 10, "b": 3})
    assert acc.used["org"][GPU] == 13 and acc.quota["org"][GPU] == 16
    assert acc.borrowed("a") == Resources({GPU: 2}) and not acc.borrowed("b") and not acc.borrowed("org")


def test_borrow_from_an_idle_sibling() -> None:
    # a has its 8; b is idle: a may take 4 more (org: 12 of 16), borrowing b's unused quota.
    acc = accounts({"a": 8})
    assert acc.check("a", {GPU: 4}).fit is Fit.FITS
    acc.charge("a", {GPU: 4})
    assert acc.borrowed("a")[GPU] == 4 and acc.used["org"][GPU] == 12


def test_no_borrowing_past_the_limit() -> None:
    # a's limit is 12: with 12 in use not one more GPU, though b is idle.
    verdict = accounts({"a": 12}).check("a", {GPU: 1})
    assert (
        verdict.fit is Fit.REFUSED and verdict.reason == "queue a would pass its limit of 12 nvidia.com/gpu"
    )
    assert verdict.detail == {"resource": GPU, "used": "12", "asks": "1"}


def test_no_borrowing_past_what_siblings_leave_unused() -> None:
    # a uses 8, b 6: org has 16 - 14 = 2 unused; a asking 4 (within its limit) must wait.
    verdict = accounts({"a": 8, "b": 6}).check("a", {GPU: 4})
    assert verdict.fit is Fit.CROWDED and "more than the queues under org leave unused" in verdict.reason
    assert verdict.detail == {"resource": GPU, "used": "8", "asks": "4", "unused": "2"}
    assert accounts({"a": 8, "b": 6}).check("a", {GPU: 2}).fit is Fit.FITS


def test_a_queue_without_parent_cannot_borrow() -> None:
    verdict = accounts({"solo": 4}).check("solo", {GPU: 1})
    assert verdict.fit is Fit.REFUSED and "has no parent to borrow from" in verdict.reason
    assert accounts({"solo": 3}).check("solo", {GPU: 1}).fit is Fit.FITS


def test_unconfigured_resources_and_the_default_queue_are_unlimited() -> None:
    acc = accounts({"a": 8, "b": 8})
    assert acc.check("a", {"cpu": 10**9, "memory": 2**50}).fit is Fit.FITS  # the tree names only GPUs
    assert acc.check("default", {GPU: 10**6}).fit is Fit.FITS


def holders() -> list[Holder]:
    # a uses 12 of its 8: a1 (8 GPUs, oldest), a2 (2, priority 5), a3 (2, newest).
    return [
        Holder(1, "a", 0, 1, gpus(8)),
        Holder(2, "a", 5, 2, gpus(2)),
        Holder(3, "a", 0, 3, gpus(2)),
    ]


def test_reclaim_when_the_owner_needs_its_guarantee_back() -> None:
    # b asks all of its 8: within its guarantee, but a borrowed 4 of them (org: 12 + 8 > 16).
    acc = accounts({"a": 12})
    verdict = acc.check("b", {GPU: 8})
    assert verdict.fit is Fit.RECLAIM and verdict.shortfall == Resources({GPU: 4})
    # Lowest priority, then newest first: a3 (2 GPUs); a1 (priority 0 too) would give back 8
    # where a borrowed only 2 more, so a2 (2 GPUs, priority 5) goes instead.
    assert reclaim(acc, "b", verdict.shortfall, holders()) == [3, 2]


def test_a_gang_evicts_lower_priority_gangs_of_its_own_queue_to_fit_its_quota() -> None:
    acc = accounts({"a": 12})  # at its limit of 12
    assert acc.check("a", gpus(2)).fit is Fit.REFUSED
    assert lower_in_queue(acc, "a", gpus(2), 9, holders()) == [3]  # the newest of the lowest priority
    # 4 past the limit: a3's 2 are not enough, a1's 8 are alone; a2 (priority 5) is not lower than 3.
    assert lower_in_queue(acc, "a", gpus(4), 3, holders()) == [1]
    assert lower_in_queue(acc, "a", gpus(4), 0, holders()) == []  # nothing of lower priority
    # b fills org's 16 by itself (past the top-level quota, no limit); a queue that never
    # preempts evicts nothing.
    holding_b = [Holder(7, "b", 0, 1, gpus(16))]
    assert lower_in_queue(accounts({"b": 16}, "lowerPriority"), "b", gpus(2), 1, holding_b) == [7]
    assert lower_in_queue(accounts({"b": 16}, "never"), "b", gpus(2), 1, holding_b) == []


def test_a_queue_is_taken_from_only_while_it_borrows() -> None:
    acc = accounts({"a": 12})  # 4 borrowed
    assert borrows_until_last(acc, "a", [gpus(4)])  # it borrows before: then at its 8
    assert borrows_until_last(acc, "a", [gpus(6)])  # more than it borrows, but taken while it does
    assert borrows_until_last(acc, "a", [gpus(2), gpus(1)])  # 4, then 2 left: both while borrowing
    assert borrows_until_last(acc, "a", [gpus(6), gpus(3)])  # the 3 first (4 -> 1), then the 6
    assert not borrows_until_last(acc, "a", [gpus(4), gpus(4)])  # the second would find it at 8
    assert not borrows_until_last(acc, "a", [gpus(2), gpus(2), gpus(2)])
    assert not borrows_until_last(accounts({"a": 8}), "a", [gpus(1)])  # it borrows nothing
    assert borrows_until_last(accounts({"a": 8}), "a", [])


def test_reclaim_takes_a_larger_gang_when_nothing_smaller_covers_it() -> None:
    acc = accounts({"a": 12})
    only_big = [Holder(1, "a", 0, 1, gpus(12))]
    assert reclaim(acc, "b", Resources({GPU: 4}), only_big) == [1]


def test_reclaim_takes_only_from_queues_that_borrow() -> None:
    acc = accounts({"a": 12})
    verdict = acc.check("b", {GPU: 6})
    assert verdict.fit is Fit.RECLAIM and verdict.shortfall == Resources({GPU: 2})
    assert reclaim(acc, "b", verdict.shortfall, holders()) == [3]  # 2 GPUs are enough


def test_no_reclaim_when_the_queue_never_preempts_or_borrowers_cannot_cover_it() -> None:
    acc = accounts({"a": 12}, b_preemption="never")
    verdict = acc.check("b", {GPU: 8})
    assert verdict.fit is Fit.RECLAIM and reclaim(acc, "b", verdict.shortfall, holders()) == []
    # a's gangs on record add up to 4 only: the 6 short cannot be had.
    acc = accounts({"a": 12, "org": 2})
    assert reclaim(acc, "b", Resources({GPU: 6}), holders()[1:]) == []


def test_a_request_past_its_own_guarantee_is_no_reclaim() -> None:
    verdict = accounts({"a": 12}).check("b", {GPU: 9})
    assert verdict.fit is Fit.CROWDED  # it would borrow: it waits for what a holds, reclaiming none


@pytest.mark.parametrize(
    ("used", "queue", "share"),
    [
        ({"a": 12}, "a", 4 / 32),  # 4 past its 8, weight 1
        ({"b": 14}, "b", 6 / 32 / 3),  # 6 past its 8, weight 3
        ({}, "b", -8 / 32),  # idle: 8 below its quota, goes first
        ({}, "default", 0.0),
    ],
    ids=["a-borrows", "b-weighted", "b-idle", "default-idle"],
)
def test_weighted_dominant_share(used: dict[str, int], queue: str, share: float) -> None:
    capacity = {GPU: 32, "pods": 1000}
    assert accounts(used).share(queue, capacity) == pytest.approx(share)


def test_the_dominant_resource_counts() -> None:
    acc = QueueAccounts(QueueTree.of([q("x")]), {"x": Resources({GPU: 1, "cpu": 50_000})})
    assert acc.share("x", {GPU: 10, "cpu": 100_000}) == pytest.approx(0.5)  # cpu: 50 of 100 cores


@pytest.mark.parametrize(
    ("setting", "victim", "victim_priority", "allowed"),
    [
        ("never", "b", 0, False),
        ("lowerPriority", "b", 0, True),  # its own queue, lower priority
        ("lowerPriority", "b", 5, False),  # same priority
        ("lowerPriority", "a", 0, False),  # another queue: only reclaimBorrowed
        ("reclaimBorrowed", "a", 0, True),  # a borrows 4
        ("reclaimBorrowed", "a", 9, True),  # whatever its priority
        ("reclaimBorrowed", "solo", 0, False),  # another tree
        ("reclaimBorrowed", "b", 5, False),
    ],
)
def test_may_preempt_by_the_preemptor_queue_setting(
    setting: str, victim: str, victim_priority: int, allowed: bool
) -> None:
    acc = accounts({"a": 12, "b": 2, "solo": 4}, b_preemption=setting)
    assert may_preempt(acc, "b", 5, victim, victim_priority) is allowed


def test_no_reclaim_from_a_queue_within_its_quota() -> None:
    acc = accounts({"a": 8, "b": 2})
    assert may_preempt(acc, "b", 5, "a", 0) is False


def test_a_queue_reclaims_only_up_to_its_own_quota() -> None:
    # a borrows 4 of b's 8. b at 2 asking 4 stays within its 8: it may take back; at 6 it may not.
    assert may_preempt(accounts({"a": 12, "b": 2}), "b", 5, "a", 0, {GPU: 4}) is True
    assert may_preempt(accounts({"a": 12, "b": 6}), "b", 5, "a", 0, {GPU: 4}) is False
    assert may_preempt(accounts({"a": 12, "b": 6}), "b", 5, "b", 0, {GPU: 4}) is True  # its own, lower
