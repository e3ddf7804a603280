"""Segment arithmetic (seed 002) as tables."""

from __future__ import annotations

import pytest

from toposched.frontends.kai import segment_count, segment_min_members, segment_of


@pytest.mark.parametrize(
    ("replicas", "size", "mandatory", "mins"),
    [
        pytest.param(16, 4, 16, [4, 4, 4, 4], id="seed-16-workers-4-segments"),
        pytest.param(5, 2, 5, [2, 2, 1], id="short-last-segment"),
        pytest.param(20, 4, 12, [4, 4, 4, 0, 0], id="seed-elastic-example"),
        pytest.param(8, 2, 4, [2, 2, 0, 0], id="elastic-minreplicas"),
        pytest.param(5, 2, 3, [2, 2, 0], id="mandatory-reaches-into-segment"),
        pytest.param(0, 2, 0, [], id="no-replicas"),
        pytest.param(3, 8, 3, [3], id="size-above-replicas"),
        pytest.param(4, 2, 0, [0, 0], id="all-elastic"),
    ],
)
def test_segment_min_members(replicas: int, size: int, mandatory: int, mins: list[int]) -> None:
    assert segment_min_members(replicas, size, mandatory) == mins
    assert segment_count(replicas, size) == len(mins)


@pytest.mark.parametrize(
    ("index", "size", "segment"),
    [(0, 4, 0), (3, 4, 0), (4, 4, 1), (15, 4, 3), (4, 2, 2), (0, 1, 0), (7, 1, 7)],
    ids=lambda v: str(v),
)
def test_segment_of(index: int, size: int, segment: int) -> None:
    assert segment_of(index, size) == segment
