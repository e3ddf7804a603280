"""The fast row reads and writes give what numpy's indexing gives (their readable twins)."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from toposched.engine.core.rowwise import put_rows, take_rows

MATRICES = hnp.arrays(
    np.int64,
    st.tuples(st.integers(1, 12), st.integers(0, 5)),
    elements=st.integers(-(2**40), 2**40),
)


@st.composite
def matrix_and_rows(draw: st.DrawFn, *, distinct: bool) -> tuple[np.ndarray, np.ndarray]:
    matrix = draw(MATRICES)
    n = matrix.shape[0]
    index = st.integers(-n, n - 1)
    if distinct:
        chosen = draw(st.lists(st.integers(0, n - 1), unique=True, max_size=n))
        negative = draw(st.lists(st.booleans(), min_size=len(chosen), max_size=len(chosen)))
        rows = [r - n if neg else r for r, neg in zip(chosen, negative, strict=True)]
    else:
        rows = draw(st.lists(index, max_size=2 * n))
    return matrix, np.asarray(rows, dtype=np.int64)


@given(matrix_and_rows(distinct=False))
def test_take_rows_reads_what_indexing_reads(case: tuple[np.ndarray, np.ndarray]) -> None:
    matrix, rows = case
    got = take_rows(matrix, rows)
    assert got.shape == matrix[rows].shape
    assert np.array_equal(got, matrix[rows])


@given(MATRICES, st.integers(0, 12), st.integers(0, 12))
def test_take_rows_of_a_slice_is_the_same_view(matrix: np.ndarray, lo: int, hi: int) -> None:
    got = take_rows(matrix, slice(lo, hi))
    assert np.array_equal(got, matrix[lo:hi])
    assert got.base is not None or got.size == 0  # a view, as indexing with a slice gives


@given(MATRICES, st.data())
def test_take_rows_of_a_mask_selects_as_indexing_does(matrix: np.ndarray, data: st.DataObject) -> None:
    mask = np.asarray(data.draw(st.lists(st.booleans(), min_size=len(matrix), max_size=len(matrix))))
    assert np.array_equal(take_rows(matrix, mask), matrix[mask])


@given(matrix_and_rows(distinct=True), st.data(), st.booleans())
def test_put_rows_writes_what_indexing_writes(
    case: tuple[np.ndarray, np.ndarray], data: st.DataObject, fortran: bool
) -> None:
    matrix, rows = case
    values = data.draw(
        hnp.arrays(np.int64, (len(rows), matrix.shape[1]), elements=st.integers(-(2**40), 2**40))
    )
    if fortran:  # not C-contiguous: written the readable way
        matrix = np.asfortranarray(matrix)
    want = matrix.copy()
    want[rows] = values
    put_rows(matrix, rows, values)
    assert np.array_equal(matrix, want)
