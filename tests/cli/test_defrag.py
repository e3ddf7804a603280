"""``toposched defrag`` on the bundled sample cluster (16 racks, one with a cordoned node)."""

from __future__ import annotations

import json
from pathlib import Path

from .conftest import Invoke


def test_freeing_racks_moves_only_the_pods_in_them(invoke: Invoke, sample_cluster: Path) -> None:
    run = invoke("defrag", "--cluster", sample_cluster, "--level", "rack", "--count", "8", "-o", "json")
    assert run.exit_code == 0, run.stderr
    plan = json.loads(run.stdout)
    assert plan["complete"] and len(plan["freed"]) == 8
    freed = {path.split("/")[-1] for path in plan["freed"]}
    for move in plan["moves"]:
        for pod in move["pods"]:
            assert pod["from"].rsplit("-", 1)[0] in freed and pod["to"].rsplit("-", 1)[0] not in freed
    assert plan["podsMoved"] == sum(len(m["pods"]) for m in plan["moves"]) == 8 - plan["alreadyFree"]


def test_asking_for_more_than_can_be_freed_exits_3_with_the_reason(
    invoke: Invoke, sample_cluster: Path
) -> None:
    run = invoke(
        "defrag", "--cluster", sample_cluster, "--level", "cloud.provider.com/topology-rack", "-n", "16"
    )
    assert run.exit_code == 3
    assert "free 15 of 16 rack(s)" in run.stdout and "whose nodes can all take pods" in run.stdout


def test_an_unknown_level_names_the_known_ones(invoke: Invoke, sample_cluster: Path) -> None:
    run = invoke("defrag", "--cluster", sample_cluster, "--level", "spine")
    assert run.exit_code == 2
    assert "--level: topology 'default' has no level 'spine'" in run.stderr and "rack (" in run.stderr
