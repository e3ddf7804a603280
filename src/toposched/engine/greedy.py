"""The two domain orders and the greedy fill shared by every ordering policy (Kueue semantics).

*Search order* (choosing domains at the requested level): leader-capable first, then slices with
the leader (descending for BestFit, ascending for LeastFreeCapacity), then pods with the leader
ascending, then the domain path. *Descent order* (sharing pods among children): slices, then
pods ascending, then the path. Below the slice level every slice count is 0, so both policies
fill the children with the fewest free pods first there.
"""

from __future__ import annotations

import numpy as np

from toposched.engine.counts import LevelCounts
from toposched.engine.policies import Strategy, best_fit_position
from toposched.topology import IntArray

_NEVER = np.iinfo(np.int64).max


class InconsistentError(Exception):
    """Phase-2 bookkeeping found less room than phase 1 promised (cannot happen by design)."""


def sort_search(counts: LevelCounts, index: IntArray, strategy: Strategy) -> IntArray:
    """Domains in search order (see module docstring)."""
    loc = counts.loc(index)
    slices = counts.slcl[loc]
    order = np.lexsort(
        (index, counts.podl[loc], -slices if strategy.descending else slices, -counts.lead[loc])
    )
    return index[order]


def sort_descent(counts: LevelCounts, index: IntArray, strategy: Strategy) -> IntArray:
    """Domains in descent order (see module docstring)."""
    loc = counts.loc(index)
    slices = counts.slc[loc]
    order = np.lexsort((index, counts.pod[loc], -slices if strategy.descending else slices))
    return index[order]


def prioritize_leader(
    counts: LevelCounts, domains: IntArray, count: int, leaders: int, unit: int, slices: bool
) -> IntArray:
    """Move the first leader-capable domain whose leader penalty still leaves room for everything
    to the front, so the fill below cannot strand the leader."""
    if leaders == 0 or len(domains) < 2:
        return domains
    loc = counts.loc(domains)
    primary, with_leader = (counts.slc, counts.slcl) if slices else (counts.pod, counts.podl)
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
    Sets ``pod``/``lead`` of the chosen domains to what they get; returns them in fill order."""
    domains = prioritize_leader(counts, domains, count, leaders, unit, slices)
    remaining = count // unit if slices else count
    factor = unit if slices else 1
    primary, with_leader = (counts.slc, counts.slcl) if slices else (counts.pod, counts.podl)
    lead, pod = counts.lead, counts.pod
    if leaders == 0 and len(domains) == 1:
        # One domain (a required level's pick) takes everything: what the fill below does for
        # it, without its array work.
        p = int(domains[0]) - counts.offset
        if primary[p] < remaining:
            raise InconsistentError(f"{remaining} units left after 1 domain")
        lead[p] = 0
        pod[p] = remaining * factor
        if slices:
            counts.slc[p] = remaining
        return domains.copy()
    chosen: list[int] = []
    i = 0
    while leaders > 0 and i < len(domains):
        d = int(domains[i])
        p = d - counts.offset
        if strategy.optimize_last and with_leader[p] >= remaining and lead[p] >= leaders:
            rest = counts.loc(domains[i:])
            d = int(domains[i + best_fit_position(with_leader[rest], remaining, lead[rest] >= leaders)])
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
    last = k + (best_fit_position(values[k:], left) if strategy.optimize_last else 0)
    head = loc[:k]
    lead[head] = 0
    if slices:
        pod[head] = counts.slc[head] * unit
    p = int(loc[last])
    lead[p] = 0
    pod[p] = left * factor
    if slices:
        counts.slc[p] = left
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
) -> IntArray:
    """``distribute`` (without leaders) for many disjoint domain lists at once: ``domains`` holds
    the lists one after another, each already in fill order, ``lengths`` the size of each list
    (all > 0) and ``counts_per`` the pods each list receives. Returns the chosen domains of every
    list, list after list, each in fill order. ``ascending``: the units of every list do not
    decrease along it, so the tightest domain that holds what is left is the first one that does."""
    n = len(domains)
    if n == 0:
        return domains
    ends = lengths.cumsum()
    starts = ends - lengths
    loc = counts.loc(domains)
    primary = counts.slc if slices else counts.pod
    factor = unit if slices else 1
    remaining = counts_per // unit if slices else counts_per
    values = primary[loc]
    total = values.cumsum()  # values are >= 0, so every list's running sum is a slice of it
    base = total[starts] - values[starts]  # units of the lists before
    # First position of each list whose running sum reaches what the list takes (the list's
    # first position when it takes nothing).
    k = np.maximum(total.searchsorted(base + remaining, side="left"), starts)
    if (k >= ends).any():
        raise InconsistentError("a domain list holds fewer units than it must take")
    left = remaining - (total[k] - values[k] - base)
    position = np.arange(n, dtype=np.int64)
    k_each = np.repeat(k, lengths)
    if strategy.optimize_last and not ascending:
        # Tightest domain from position k on that still holds what is left, first on ties (the
        # domain at k always qualifies, so every list has one).
        key = np.where((position >= k_each) & (values >= np.repeat(left, lengths)), values, _NEVER)
        hits = np.flatnonzero(key == np.repeat(np.minimum.reduceat(key, starts), lengths))
        last = hits[hits.searchsorted(k)]
    else:
        last = k
    head = position < k_each
    at = loc[head]
    counts.lead[at] = 0
    if slices:
        counts.pod[at] = counts.slc[at] * unit
    at = loc[last]
    counts.lead[at] = 0
    counts.pod[at] = left * factor
    if slices:
        counts.slc[at] = left
    head[last] = True
    chosen: IntArray = domains[head]
    return chosen


def expand(starts: IntArray, ends: IntArray) -> IntArray:
    """Concatenation of the index ranges [starts[i], ends[i]) in order."""
    if len(starts) == 1:
        return np.arange(int(starts[0]), int(ends[0]), dtype=np.int64)
    lengths = ends - starts
    reached: IntArray = lengths.cumsum()
    total = int(reached[-1]) if len(reached) else 0
    if total == 0:
        return np.zeros(0, dtype=np.int64)
    # Position p of range i holds p + starts[i] - (sum of the lengths before i) = p + ends[i] - reached[i].
    return np.arange(total, dtype=np.int64) + np.repeat(ends - reached, lengths)
