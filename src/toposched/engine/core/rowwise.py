"""Whole rows of a 2-D array read and written by index, faster than numpy's fancy indexing.

``matrix[rows]`` and ``matrix[rows] = values`` go through numpy's general advanced-indexing
machinery, which for an array of rows costs several times what copying them does
(``bench/rowwise.py`` measures both). The ledger reads
and writes rows of its free matrix on every charge, so the placement paths use these two; the
indexing expressions in their docstrings are the readable twins (``tests/engine/test_rowwise.py``
holds them to the same results).
"""

from __future__ import annotations

import numpy as np

from toposched.topology import IntArray


def take_rows(matrix: IntArray, rows: IntArray | slice) -> IntArray:
    """``matrix[rows]``: a copy of the rows an index array names (a slice gives a view, as
    indexing does; a boolean mask is indexed as it is)."""
    if isinstance(rows, slice) or rows.dtype == np.bool_:
        return matrix[rows]
    return matrix.take(rows, axis=0)


def put_rows(matrix: IntArray, rows: IntArray, values: IntArray) -> None:
    """``matrix[rows] = values`` for an index array of distinct rows and one row of ``values``
    per row, as wide as ``matrix``: each row written as one opaque item of a C-contiguous matrix."""
    width = matrix.shape[1] if matrix.ndim == 2 else 0
    if (
        width
        and matrix.flags.c_contiguous
        and values.flags.c_contiguous
        and values.dtype == matrix.dtype
        and values.shape == (len(rows), width)
    ):
        whole = np.dtype((np.void, matrix.itemsize * width))  # an opaque item: a whole row
        matrix.view(whole).reshape(-1).put(rows, values.view(whole).reshape(-1))
    else:
        matrix[rows] = values
