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
    first = int(np.argmax(ok))
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
    reached = np.cumsum(values)
    k = int(np.searchsorted(reached, remaining, side="left"))
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
    return np.concatenate((np.asarray(chosen, dtype=np.int64), tail[:k], tail[last : last + 1]))


def distribute_each(
    counts: LevelCounts,
    segments: IntArray,
    domains: IntArray,
    counts_per: IntArray,
    unit: int,
    strategy: Strategy,
    slices: bool,
) -> IntArray:
    """``distribute`` (without leaders) for many disjoint domain lists at once: ``domains`` holds
    the lists one after another, already in fill order, ``segments`` the list of each domain
    (ascending) and ``counts_per`` the pods each list receives. Returns the chosen domains of
    every list, list after list, each in fill order."""
    n = len(domains)
    if n == 0:
        return domains
    starts = np.flatnonzero(np.r_[True, segments[1:] != segments[:-1]])
    lengths = np.diff(np.r_[starts, n])
    position = np.arange(n, dtype=np.int64) - np.repeat(starts, lengths)
    loc = counts.loc(domains)
    primary = counts.slc if slices else counts.pod
    factor = unit if slices else 1
    remaining = np.repeat(counts_per // unit if slices else counts_per, lengths)
    values = primary[loc]
    total = np.cumsum(values)
    reached = total - np.repeat(total[starts] - values[starts], lengths)  # running sum per list
    k = np.add.reduceat((reached < remaining).astype(np.int64), starts)  # values are >= 0
    if np.any(k >= lengths):
        raise InconsistentError("a domain list holds fewer units than it must take")
    k_each = np.repeat(k, lengths)
    before = np.where(k > 0, reached[starts + k - 1], 0)
    left = remaining - np.repeat(before, lengths)
    if strategy.optimize_last:
        # Tightest domain from position k on that still holds what is left, first on ties.
        ok = (position >= k_each) & (values >= left)
        key = np.where(ok, values, _NEVER)
        smallest = np.repeat(np.minimum.reduceat(key, starts), lengths)
        hit = ok & (key == smallest)
        last = np.maximum.reduceat(np.where(hit, -position, -n), starts) * -1
    else:
        last = k
    last_each = np.repeat(last, lengths)
    head = position < k_each
    tail = position == last_each
    counts.lead[loc[head]] = 0
    if slices:
        counts.pod[loc[head]] = counts.slc[loc[head]] * unit
    at, amount = loc[tail], left[tail]
    counts.lead[at] = 0
    counts.pod[at] = amount * factor
    if slices:
        counts.slc[at] = amount
    chosen: IntArray = domains[head | tail]
    return chosen


def expand(starts: IntArray, ends: IntArray) -> IntArray:
    """Concatenation of the index ranges [starts[i], ends[i]) in order."""
    lengths = ends - starts
    total = int(lengths.sum())
    if total == 0:
        return np.zeros(0, dtype=np.int64)
    offsets = np.repeat(starts - np.concatenate(([0], np.cumsum(lengths)[:-1])), lengths)
    return np.arange(total, dtype=np.int64) + offsets
