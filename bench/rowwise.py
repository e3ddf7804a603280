"""Whole rows of a matrix read and written by index: numpy's fancy indexing against
``toposched.engine.core.rowwise`` (``take_rows``, ``put_rows``), which the ledger uses on every
charge; and ``np.add.at`` on a matrix against the one-dimensional ``at`` the ledger's
``_apply`` uses for repeated rows.

For each row count, ``--rows`` distinct rows of a C-contiguous int64 matrix of ``--width``
columns (the ledger's free matrix: 10,000 nodes) are read (``matrix[rows]`` / ``take_rows``),
written (``matrix[rows] = values`` / ``put_rows``) and added to with repeats (2-D ``np.add.at``
/ 1-D ``np.add.at`` on flat positions). Each pair is timed interleaved; the medians in µs and
the ratios are printed.

Run: python bench/rowwise.py [--rows 100,700,5000] [--width 4] [--repeat 2000] [--quick]
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

import numpy as np

from toposched.engine.core.rowwise import put_rows, take_rows

NODES = 10_000


def timed(call: Callable[[], object], repeat: int) -> float:
    """Median µs of one call over ``repeat`` calls (each batch of 10 timed together)."""
    samples = []
    for _ in range(max(1, repeat // 10)):
        start = time.perf_counter()
        for _ in range(10):
            call()
        samples.append((time.perf_counter() - start) / 10 * 1e6)
    return statistics.median(samples)


def pairs(rows: int, width: int) -> list[tuple[str, Callable[[], object], Callable[[], object]]]:
    generator = np.random.default_rng(7)
    matrix = generator.integers(0, 1000, size=(NODES, width), dtype=np.int64)
    index = np.sort(generator.choice(NODES, size=rows, replace=False)).astype(np.int64)
    values = generator.integers(0, 1000, size=(rows, width), dtype=np.int64)
    repeated = generator.integers(0, NODES, size=rows, dtype=np.int64)
    flat = (repeated[:, None] * width + np.arange(width, dtype=np.int64)).reshape(-1)

    def fancy_write() -> None:
        matrix[index] = values

    return [
        ("read", lambda: matrix[index], lambda: take_rows(matrix, index)),
        ("write", fancy_write, lambda: put_rows(matrix, index, values)),
        (
            "add, rows repeat",
            lambda: np.add.at(matrix, repeated, values),
            lambda: np.add.at(matrix.reshape(-1), flat, values.reshape(-1)),
        ),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", default="100,700,5000")
    parser.add_argument("--width", type=int, default=4)
    parser.add_argument("--repeat", type=int, default=2000)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    sizes = [700] if args.quick else [int(n) for n in args.rows.split(",")]
    repeat = 100 if args.quick else args.repeat
    print(f"{'rows':>6} {'operation':<18} {'numpy µs':>9} {'rowwise µs':>11} {'ratio':>6}")
    for rows in sizes:
        for name, numpy_way, our_way in pairs(rows, args.width):
            slow, fast = [], []
            for _ in range(5):  # interleaved, so load from other processes hits both alike
                slow.append(timed(numpy_way, repeat // 5))
                fast.append(timed(our_way, repeat // 5))
            a, b = statistics.median(slow), statistics.median(fast)
            print(f"{rows:>6} {name:<18} {a:>9.1f} {b:>11.1f} {a / b:>5.1f}x")


if __name__ == "__main__":
    main()
