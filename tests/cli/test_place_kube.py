"""``toposched place`` on kube inputs: the placement, then the PodGroup conditions kube-scheduler
would write (lines in the table, ``podGroups`` in JSON)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.conftest import Invoke
from tests.cli.test_place import KEYS

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "kube"


def test_table_ends_with_the_podgroup_conditions(invoke: Invoke) -> None:
    run = invoke("place", EXAMPLES / "leader-workers.yaml", "--cluster", EXAMPLES / "cluster.yaml")
    assert run.exit_code == 0, run.stderr
    assert "PodGroup infer-leader: PodGroupInitiallyScheduled=True (Scheduled)" in run.stdout
    assert "PodGroup infer-workers: PodGroupInitiallyScheduled=True (Scheduled)" in run.stdout
    assert run.stderr == ""  # kube-scheduler needs no Topology object: nothing to warn about


def test_json_adds_unschedulable_podgroups(invoke: Invoke, tmp_path: Path) -> None:
    job = (EXAMPLES / "job-one-rack.yaml").read_text(encoding="utf-8")
    too_big = tmp_path / "job.yaml"
    too_big.write_text(
        job.replace("parallelism: 8", "parallelism: 12").replace("completions: 8", "completions: 12")
    )
    run = invoke("place", too_big, "--cluster", EXAMPLES / "cluster.yaml", "-o", "json")
    assert run.exit_code == 3, run.stderr
    doc = json.loads(run.stdout)
    assert set(doc) == {*KEYS, "podGroups"}
    (group,) = doc["podGroups"]
    (condition,) = group["status"]["conditions"]
    assert (condition["status"], condition["reason"]) == ("False", "Unschedulable")
    assert condition["message"] == (
        "0/3 placements are available, reported placement status: minCount (12) cannot be satisfied: "
        "8 scheduled, 3 remaining"
    )
