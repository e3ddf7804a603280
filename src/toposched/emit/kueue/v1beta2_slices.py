"""Choosing v1beta2 slice boundaries: the partition of the domains with the smallest JSON.

Domains keep their order (it is the rank order Kueue's ungater expands), so the only freedom is
where slices start. Each slice costs its fixed JSON text plus, per domain, its roots: what is left
of each value once the slice's common prefix and suffix are taken off. Short slices have long
common affixes but pay the fixed text often; long ones the reverse.

``smallest_partition`` merges adjacent slices bottom-up, cheapest merge first (merges that
shrink the JSON, and any merge while there are more than ``max_slices``), starting from runs
of equal keys (grouped into at most ``START_PIECES`` pieces, which bounds the time when names
are scattered and runs are a domain or two long). Sizes come from per-slice summaries (smallest
and largest value and reversed value per level, lengths, counts), so a merge costs a few string
comparisons, not a re-encode; ``_Slice.size`` is exactly the length of the slice's compact JSON
as ``v1beta2._encode_slice`` writes it, for values that need no JSON escapes (label values).
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence
from dataclasses import dataclass

from toposched.model import DomainCount

# Characters of a slice's compact JSON around its values, per level entry and per pod-count form.
_SLICE_TEXT = len('{"domainCount":,"valuesPerLevel":[],"podCounts":{}}')
_UNIVERSAL_TEXT = len('{"universal":""}')
_INDIVIDUAL_TEXT = len('{"individual":{"roots":[]}}')
_AFFIX_TEXT = len('"prefix":"",')
_UNIVERSAL_COUNT_TEXT = len('"universal":')
_INDIVIDUAL_COUNTS_TEXT = len('"individual":[]')
START_PIECES = 16_000  # 16 per slice at most 1000 slices: finer starts only cost time


@dataclass(frozen=True, slots=True)
class _Level:
    """What a slice's JSON size depends on, for one level's values."""

    low: str
    high: str
    low_reversed: str
    high_reversed: str
    shortest: int
    total_length: int

    @staticmethod
    def of(values: Sequence[str]) -> _Level:
        reversed_values = [v[::-1] for v in values]
        return _Level(
            min(values),
            max(values),
            min(reversed_values),
            max(reversed_values),
            min(map(len, values)),
            sum(map(len, values)),
        )

    def merge(self, other: _Level) -> _Level:
        return _Level(
            min(self.low, other.low),
            max(self.high, other.high),
            min(self.low_reversed, other.low_reversed),
            max(self.high_reversed, other.high_reversed),
            min(self.shortest, other.shortest),
            self.total_length + other.total_length,
        )

    def size(self, n: int) -> int:
        if self.low == self.high:
            return _UNIVERSAL_TEXT + len(self.low)
        # The common prefix of all values is the common prefix of the smallest and largest one.
        prefix = common_prefix_length(self.low, self.high)
        suffix = common_prefix_length(self.low_reversed, self.high_reversed)
        prefix = min(prefix, self.shortest - suffix)  # they may not overlap in the shortest value
        affixes = (_AFFIX_TEXT + prefix if prefix else 0) + (_AFFIX_TEXT + suffix if suffix else 0)
        roots = self.total_length - n * (prefix + suffix) + 3 * n - 1  # quotes, commas between
        return _INDIVIDUAL_TEXT + affixes + roots


@dataclass(frozen=True, slots=True)
class _Slice:
    """Summary of the domains ``[start, end)``."""

    start: int
    end: int
    levels: tuple[_Level, ...]
    first_count: int
    same_counts: bool
    count_digits: int  # digits of every count plus the commas between them

    @staticmethod
    def of(domains: Sequence[DomainCount], start: int, end: int) -> _Slice:
        chunk = domains[start:end]
        counts = [d.count for d in chunk]
        levels = tuple(_Level.of([d.values[i] for d in chunk]) for i in range(len(chunk[0].values)))
        same = counts.count(counts[0]) == len(counts)
        digits = sum(len(str(c)) for c in counts) + len(counts) - 1
        return _Slice(start, end, levels, counts[0], same, digits)

    def merge(self, other: _Slice) -> _Slice:
        return _Slice(
            self.start,
            other.end,
            tuple(a.merge(b) for a, b in zip(self.levels, other.levels, strict=True)),
            self.first_count,
            self.same_counts and other.same_counts and self.first_count == other.first_count,
            self.count_digits + other.count_digits + 1,
        )

    def size(self) -> int:
        """Characters of the slice's compact JSON, plus one for the comma before the next."""
        n = self.end - self.start
        counts = (
            _UNIVERSAL_COUNT_TEXT + len(str(self.first_count))
            if self.same_counts
            else _INDIVIDUAL_COUNTS_TEXT + self.count_digits
        )
        levels = sum(level.size(n) for level in self.levels) + len(self.levels) - 1
        return _SLICE_TEXT + len(str(n)) + levels + counts + 1


def common_prefix_length(a: str, b: str) -> int:
    n = min(len(a), len(b))
    i = 0
    while i < n and a[i] == b[i]:
        i += 1
    return i


def smallest_partition(
    domains: Sequence[DomainCount], runs: Sequence[tuple[int, int]], max_slices: int, max_domains: int
) -> list[tuple[int, int]]:
    """``[start, end)`` slice ranges covering ``runs`` (consecutive, each at most ``max_domains``
    long), at most ``max_slices`` of them when the domains allow it, merged greedily to the
    smallest JSON the summaries predict."""
    if not runs:
        return []
    if len(runs) > START_PIECES:
        runs = _grouped(runs, -(-len(runs) // START_PIECES), max_domains)
    slices: list[_Slice | None] = [_Slice.of(domains, start, end) for start, end in runs]
    following = list(range(1, len(slices) + 1))
    preceding = list(range(-1, len(slices) - 1))
    sizes = [s.size() for s in slices if s is not None]
    heap: list[tuple[int, int, int, int]] = []  # (size change, left, left's end, right's end)

    def push(left: int) -> None:
        right = following[left]
        a, b = slices[left], slices[right] if right < len(slices) else None
        if a is None or b is None or b.end - a.start > max_domains:
            return
        change = a.merge(b).size() - sizes[left] - sizes[right]
        heapq.heappush(heap, (change, left, a.end, b.end))

    for i in range(len(slices) - 1):
        push(i)
    live = len(slices)
    while heap:
        change, left, left_end, right_end = heapq.heappop(heap)
        a = slices[left]
        right = following[left] if a is not None else len(slices)
        b = slices[right] if right < len(slices) else None
        if a is None or b is None or a.end != left_end or b.end != right_end:
            continue  # stale: one side merged since this entry was pushed
        if change >= 0 and live <= max_slices:
            break  # the heap is ordered: no merge left shrinks the JSON
        slices[left], slices[right] = a.merge(b), None
        sizes[left] += sizes[right] + change
        following[left] = following[right]
        if following[left] < len(slices):
            preceding[following[left]] = left
        live -= 1
        push(left)
        if preceding[left] >= 0:
            push(preceding[left])
    return [(s.start, s.end) for s in slices if s is not None]


def _grouped(runs: Sequence[tuple[int, int]], group: int, max_domains: int) -> list[tuple[int, int]]:
    """Consecutive runs joined ``group`` at a time, never past ``max_domains`` domains."""
    out: list[tuple[int, int]] = []
    taken = 0
    for start, end in runs:
        if out and taken < group and end - out[-1][0] <= max_domains:
            out[-1] = (out[-1][0], end)
            taken += 1
        else:
            out.append((start, end))
            taken = 1
    return out
