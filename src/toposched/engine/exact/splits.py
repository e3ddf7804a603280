"""Every way to share identical pods over nodes, fullest first, for the exact search.

``splits(cap, n)`` yields each split of ``n`` pods over positions with room ``cap`` (pods per
position, in the order to fill), starting with the greedy fill (every position as full as it can
be, in order) and going on in decreasing lexicographic order: the first positions give up one pod
at a time, the later ones take it greedily. Each split is the same list, updated in place, with
the range of positions that changed since the previous one, so a caller charges only the
difference. Iterative, so a long node list costs no recursion.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence


def splits(cap: Sequence[int], n: int) -> Iterator[tuple[list[int], int, int]]:
    """Each split of ``n`` pods over ``cap`` as (pods per position, first and end of the positions
    changed since the previous split); none when they do not fit (see the module docstring)."""
    m = len(cap)
    after = [0] * m  # room of the positions after each one
    for i in range(m - 2, -1, -1):
        after[i] = after[i + 1] + cap[i + 1]
    if m == 0 or after[0] + cap[0] < n:
        if n == 0:
            yield [0] * m, 0, 0
        return
    take = [0] * m
    end = _fill(take, cap, 0, n, 0)
    yield take, 0, end
    while True:
        tail = 0  # pods on the positions after i
        for i in range(end - 1, -1, -1):
            if take[i] and tail + 1 <= after[i]:
                take[i] -= 1
                last = _fill(take, cap, i + 1, tail + 1, end)
                yield take, i, max(end, last)
                end = last
                break
            tail += take[i]
        else:
            return


def _fill(take: list[int], cap: Sequence[int], start: int, amount: int, end: int) -> int:
    """Give ``amount`` pods to positions ``start``.. greedily and zero the rest up to ``end`` (the
    old end of the positions holding pods); the new end (one past the last position written)."""
    j = start
    while amount and j < len(take):
        take[j] = min(cap[j], amount)
        amount -= take[j]
        j += 1
    for k in range(j, end):
        take[k] = 0
    return j
