"""Every way to share identical pods over nodes, fullest first, for the exact search.

``splits(cap, n)`` yields each split of ``n`` pods over positions with room ``cap`` (pods per
position, in the order to fill), as (position, pods) pairs, starting with the greedy fill (every
position as full as it can be, in order) and going on in decreasing lexicographic order: the
first positions give up one pod at a time, the later ones take it greedily. Iterative, so a
long node list costs no recursion.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence


def splits(cap: Sequence[int], n: int) -> Iterator[list[tuple[int, int]]]:
    """Each split of ``n`` pods over ``cap`` (see the module docstring); none when they do not fit."""
    m = len(cap)
    after = [0] * m  # room of the positions after each one
    for i in range(m - 2, -1, -1):
        after[i] = after[i + 1] + cap[i + 1]
    if m == 0 or after[0] + cap[0] < n:
        if n == 0:
            yield []
        return
    take = [0] * m
    _fill(take, cap, 0, n)
    while True:
        yield [(i, t) for i, t in enumerate(take) if t]
        tail = 0  # pods on the positions after i
        for i in range(m - 1, -1, -1):
            if take[i] and tail + 1 <= after[i]:
                take[i] -= 1
                _fill(take, cap, i + 1, tail + 1)
                break
            tail += take[i]
        else:
            return


def _fill(take: list[int], cap: Sequence[int], start: int, amount: int) -> None:
    """Give ``amount`` pods to positions ``start``.. greedily (each as full as it can be)."""
    for j in range(start, len(take)):
        take[j] = min(cap[j], amount)
        amount -= take[j]
