"""Fast paths of the Kueue solver against their readable twins."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from toposched.engine.solver import in_index_order


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 300).flatmap(lambda n: st.tuples(st.just(n), st.sets(st.integers(0, n - 1)))))
def test_in_index_order_is_the_sorted_domains(case: tuple[int, set[int]]) -> None:
    count, domains = case
    shuffled = np.random.default_rng(count).permutation(np.asarray(sorted(domains), dtype=np.int64))
    assert in_index_order(shuffled, count).tolist() == sorted(domains)
