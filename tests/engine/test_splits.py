"""``splits``: every way to share identical pods over nodes, fullest first, each exactly once,
and the changed range it reports covers every position that changed."""

from __future__ import annotations

from itertools import product

from hypothesis import given, settings
from hypothesis import strategies as st

from toposched.engine.exact.splits import splits


def test_greedy_fill_comes_first() -> None:
    assert [list(take) for take, _, _ in splits([2, 1, 2], 3)] == [
        [2, 1, 0],
        [2, 0, 1],
        [1, 1, 1],
        [1, 0, 2],
        [0, 1, 2],
    ]


def test_pods_that_do_not_fit_have_no_split() -> None:
    assert list(splits([1, 1], 3)) == []


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 3), max_size=6), st.integers(0, 9))
def test_every_split_once_in_decreasing_order(cap: list[int], n: int) -> None:
    seen: list[tuple[int, ...]] = []
    previous = [0] * len(cap)
    for take, first, end in splits(cap, n):
        unchanged = [k for k in range(len(cap)) if not first <= k < end]
        assert all(take[k] == previous[k] for k in unchanged)
        seen.append(tuple(take))
        previous = list(take)
    every = [x for x in product(*(range(c + 1) for c in cap)) if sum(x) == n]
    assert seen == sorted(every, reverse=True)
