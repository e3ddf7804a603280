"""The greedy fill shared by every ordering policy (Kueue semantics): domains in the policy's
order each take as much as they can, and the policy picks the domain that takes the last pods.

``distribute`` is the readable fill; ``distribute_each`` does the same for many disjoint domain
lists at once (the descent below the slice level) and ``greedy_pick`` for one level of room
counts (the hierarchical solver's Kueue orderings).
"""

from __future__ import annotations

import numpy as np

from toposched.engine.core.counts import LevelCounts
from toposched.engine.core.strategy import Strategy, last_domain
from toposched.topology import IntArray


class InconsistentError(Exception):
    """Phase-2 bookkeeping found less room than phase 1 promised (cannot happen by design);
    ``kueue.phases.solve`` returns it as an ``Unschedulable``."""


def prioritize_leader(
    counts: LevelCounts, domains: IntArray, count: int, leaders: int, unit: int, slices: bool
) -> IntArray:
    """Move the first leader-capable domain whose leader penalty still leaves room for everything
    to the front, so the fill below cannot strand the leader."""
    if leaders == 0 or len(domains) < 2:
        return domains
    loc = counts.loc(domains)
    primary, with_leader = (
        (counts.slices, counts.slices_with_leader) if slices else (counts.pods, counts.pods_with_leader)
    )
    needed = count // unit if slices else count
    available = int(primary[loc].sum())
    ok = (counts.lead[loc] >= leaders) & (available - (primary[loc] - with_leader[loc]) >= needed)
    if not ok.any():
        return domains
    first = int(ok.argmax())
    if first == 0:
        return domains
    return np.concatenate((domains[first : first + 1], domains[:first], domains[first + 1 :]))


def distribute(
    counts: LevelCounts,
    domains: IntArray,
    count: int,
    leaders: int,
    unit: int,
    strategy: Strategy,
    slices: bool,
) -> IntArray:
    """Give ``count`` pods (and ``leaders`` leader pods) to ``domains`` in order, each as much as
    it can take, in whole units of ``unit`` pods when ``slices``; the domain that could take all
    that remains is swapped for the tightest such domain when the strategy optimizes the last one.
    Sets ``pods``/``lead`` of the chosen domains to what they get; returns them in fill order."""
    domains = prioritize_leader(counts, domains, count, leaders, unit, slices)
    remaining = count // unit if slices else count
    factor = unit if slices else 1
    primary, with_leader = (
        (counts.slices, counts.slices_with_leader) if slices else (counts.pods, counts.pods_with_leader)
    )
    lead, pod = counts.lead, counts.pods
    if leaders == 0 and len(domains) == 1:
        # One domain (a required level's pick) takes everything: what the fill below does for
        # it, without its array work.
        p = int(domains[0]) - counts.offset
        if primary[p] < remaining:
            raise InconsistentError(f"{remaining} units left after 1 domain")
        lead[p] = 0
        pod[p] = remaining * factor
        if slices:
            counts.slices[p] = remaining
        return domains.copy()
    chosen: list[int] = []
    i = 0
    while leaders > 0 and i < len(domains):
        d = int(domains[i])
        p = d - counts.offset
        if with_leader[p] >= remaining and lead[p] >= leaders:
            rest = counts.loc(domains[i:])
            d = int(domains[i + last_domain(strategy, with_leader[rest], remaining, lead[rest] >= leaders)])
            p = d - counts.offset
        chosen.append(d)
        if with_leader[p] >= remaining and lead[p] >= leaders:
            primary[p] = remaining
            lead[p] = leaders
            pod[p] = remaining * factor
            return np.asarray(chosen, dtype=np.int64)
        with_leader[p] = min(with_leader[p], remaining)
        lead[p] = min(lead[p], leaders)
        primary[p] = with_leader[p]
        pod[p] = with_leader[p] * factor
        leaders -= int(lead[p])
        remaining -= int(with_leader[p])
        i += 1
    tail = domains[i:]
    loc = counts.loc(tail)
    values = primary[loc]
    reached = values.cumsum()
    k = int(reached.searchsorted(remaining, side="left"))
    if k >= len(tail):
        raise InconsistentError(f"{remaining} units left after {len(domains)} domains")
    left = remaining - (int(reached[k - 1]) if k else 0)
    last = k + last_domain(strategy, values[k:], left)
    if k:
        head = loc[:k]
        lead[head] = 0
        if slices:  # ``values`` are the slices of the domains in order
            pod[head] = values[:k] * unit if unit > 1 else values[:k]
    p = int(loc[last])
    lead[p] = 0
    pod[p] = left * factor
    if slices:
        counts.slices[p] = left
    filled = np.concatenate((tail[:k], tail[last : last + 1]))
    return np.concatenate((np.asarray(chosen, dtype=np.int64), filled)) if chosen else filled


def distribute_each(
    counts: LevelCounts,
    lengths: IntArray,
    domains: IntArray,
    counts_per: IntArray,
    unit: int,
    strategy: Strategy,
    slices: bool,
    *,
    ascending: bool = False,
    leads: bool = True,
) -> IntArray:
    """``distribute`` (without leaders) for many disjoint domain lists at once: ``domains`` holds
    the lists one after another, each already in fill order, ``lengths`` the size of each list
    (all > 0) and ``counts_per`` the pods each list receives. Returns the chosen domains of every
    list, list after list, each in fill order. ``ascending``: the units of every list do not
    decrease along it, so the tightest domain that holds what is left is the first one that does.
    ``leads`` False: no domain carries a leader mark (a request without a leader), none to clear."""
    n = len(domains)
    if n == 0:
        return domains
    ends = lengths.cumsum()
    starts = ends - lengths
    loc = counts.loc(domains)
    primary = counts.slices if slices else counts.pods
    factor = unit if slices else 1
    remaining = counts_per // unit if slices else counts_per
    values = primary[loc]
    total = values.cumsum()  # values are >= 0, so every list's running sum is a slice of it
    before = total - values  # units before each position
    base = before[starts]  # units of the lists before
    # First position of each list whose running sum reaches what the list takes (the list's
    # first position when it takes nothing).
    k = np.maximum(total.searchsorted(base + remaining, side="left"), starts)
    if (k >= ends).any():
        raise InconsistentError("a domain list holds fewer units than it must take")
    left = remaining - (before[k] - base)
    # The domain at k always holds what is left, and with ``ascending`` it is the tightest too.
    last = k if ascending else strategy.last_domains(values, lengths, k, left)
    position = np.arange(n, dtype=np.int64)
    head = position < np.repeat(k, lengths)
    at = loc[head]
    if leads:
        counts.lead[at] = 0
    if slices:
        counts.pods[at] = counts.slices[at] * unit
    at = loc[last]
    if leads:
        counts.lead[at] = 0
    counts.pods[at] = left * factor
    if slices:
        counts.slices[at] = left
    head[last] = True
    chosen: IntArray = domains[head]
    return chosen


def greedy_pick(
    room: IntArray, ids: IntArray, count: int, strategy: Strategy, *, whole: bool
) -> list[tuple[int, int]]:
    """Kueue's greedy over one level: (position in ``room``, pods) pairs for ``count`` pods,
    fewer in total when the room runs out.

    Items are taken in the strategy's order of room (ties by ``ids`` ascending) and the strategy
    picks the item that takes the rest. ``whole``: this is a level the request prefers, so the
    strategy's pick of one item that holds everything comes first.
    """
    if count <= 0 or len(room) == 0:
        return []
    order = np.lexsort((ids, -room if strategy.descending else room))
    ranked = room[order]
    if whole:
        alone = strategy.level_domain(ranked, ranked >= count, count)
        if alone is not None:
            return [(int(order[alone]), count)]
    reached = np.cumsum(ranked)
    last = int(np.searchsorted(reached, count, side="left"))
    if last >= len(order):
        return [(int(i), int(r)) for i, r in zip(order, ranked, strict=True) if r > 0]
    rest = count - (int(reached[last - 1]) if last else 0)
    picked = [(int(i), int(r)) for i, r in zip(order[:last], ranked[:last], strict=True) if r > 0]
    final = last + last_domain(strategy, ranked[last:], rest)
    return [*picked, (int(order[final]), rest)]
