"""Fast paths of the Kueue solver against their readable twins: ``in_index_order`` / sorting,
``tally`` / ``np.unique``, the descent's folded sort key (``_by_parent``) / ``np.lexsort``."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from toposched.engine.core.output import tally
from toposched.engine.kueue.descend import _by_parent
from toposched.engine.kueue.phases import in_index_order


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


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_by_parent_is_lexsort_order(data: st.DataObject) -> None:
    """The descent's order of children parent after parent, folded into one key (16-bit when it
    fits), is ``np.lexsort`` by parent, slices, pods."""
    lengths = np.asarray(data.draw(st.lists(st.integers(1, 40), min_size=1, max_size=60)), dtype=np.int64)
    top = data.draw(st.sampled_from([1, 5, 110, 5000]))  # with many parents, the last passes 16 bits
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    pods = rng.integers(0, top + 1, int(lengths.sum()))
    slices = pods // data.draw(st.integers(1, 4)) if data.draw(st.booleans()) else None
    descending = data.draw(st.booleans())
    parents = np.repeat(np.arange(len(lengths)), lengths)
    ranked = np.zeros(len(pods), dtype=np.int64) if slices is None else -slices if descending else slices
    expected = np.lexsort((pods, ranked, parents))
    assert _by_parent(pods, slices, lengths, descending).tolist() == expected.tolist()
