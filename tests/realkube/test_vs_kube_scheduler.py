"""kube-scheduler v1.37.2 and toposched side by side (bench/vs_kube_scheduler.py runs 1,000
cases): a few generated cases of each gang kind, placed by kube-scheduler on a control plane of
their own and by ``toposched place`` on a dump of the same cluster, must agree."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from tests.realkube.fixture import side_by_side_for_tests
from tests.realkube.sidebyside.batch import SideBySide, run_batch
from tests.realkube.sidebyside.cases import generate_case
from tests.realkube.sidebyside.report import agreed

SEED = 1
# A PodGroup, a Workload of PodGroups, CompositePodGroup trees and Jobs, placed, refused and
# decided between equal scores (a rack with a cordoned node, random ties among alike nodes).
CASES = (0, 2, 3, 4, 6, 9, 12, 13, 14, 29)


@pytest.fixture(scope="module")
def side() -> Iterator[SideBySide]:
    yield from side_by_side_for_tests()


def test_the_cases_cover_every_gang_kind() -> None:
    assert {generate_case(SEED, i).gang.kind for i in CASES} == {"podgroup", "workload", "composite", "job"}


@pytest.mark.real_apiserver
def test_toposched_places_as_kube_scheduler_does(side: SideBySide) -> None:
    verdicts = run_batch(side, SEED, CASES)
    shown = "\n".join(
        f"case {v.case.index} {v.outcome}: {v.case.summary}; {v.detail} {v.notes}"
        for v in verdicts
        if not agreed(v)
    )
    assert all(agreed(v) for v in verdicts), shown
