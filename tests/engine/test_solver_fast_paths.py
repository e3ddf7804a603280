"""Fast paths of the Kueue solver against their readable twins."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from toposched.engine.output import tally
from toposched.engine.solver import in_index_order


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 300).flatmap(lambda n: st.tuples(st.just(n), st.sets(st.integers(0, n - 1)))))
def test_in_index_order_is_the_sorted_domains(case: tuple[int, set[int]]) -> None:
    count, domains = case
    shuffled = np.random.default_rng(count).permutation(np.asarray(sorted(domains), dtype=np.int64))
    assert in_index_order(shuffled, count).tolist() == sorted(domains)


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 400).flatmap(lambda n: st.tuples(st.just(n), st.lists(st.integers(0, n - 1)))))
def test_tally_counts_what_unique_counts(case: tuple[int, list[int]]) -> None:
    size, values = case
    domains = np.asarray(values, dtype=np.int64)
    found, counts = tally(domains, size)
    expected, times = np.unique(domains, return_counts=True)
    assert found.tolist() == expected.tolist() and counts.tolist() == times.tolist()
