"""``toposched place`` on kube inputs: the placement, then the PodGroup conditions kube-scheduler
would write (lines in the table, ``podGroups`` in JSON)."""

from __future__ import annotations

import json
from pathlib import Path

import yaml
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
    assert set(doc) == {*KEYS, "podGroups", "created"}
    (_, group) = doc["created"]  # the Job's Workload and PodGroup
    (condition,) = group["status"]["conditions"]
    assert (condition["status"], condition["reason"]) == ("False", "Unschedulable")
    assert condition["message"] == (
        "0/3 placements are available, first placement status: minCount (12) cannot be satisfied: "
        "8 scheduled, 3 remaining"
    )


def test_json_reports_the_input_podgroups_as_written(invoke: Invoke, tmp_path: Path) -> None:
    """Issue 22 item 15: names, workloadRef and apiVersion as the user wrote them, no invented
    workloadRef; what the dry run creates is said apart, under ``created``."""
    text = (EXAMPLES / "leader-workers.yaml").read_text(encoding="utf-8")
    text = text.replace("apiVersion: scheduling.k8s.io/v1beta1", "apiVersion: scheduling.k8s.io/v1alpha3")
    text = text.replace("  workloadRef: {workloadName: infer, templateName: workers}\n", "")
    source = tmp_path / "infer.yaml"
    source.write_text(text, encoding="utf-8")
    run = invoke("place", source, "--cluster", EXAMPLES / "cluster.yaml", "-o", "json")
    assert run.exit_code == 0, run.stderr
    doc = json.loads(run.stdout)
    leader, workers = doc["podGroups"]
    assert leader["apiVersion"] == workers["apiVersion"] == "scheduling.k8s.io/v1alpha3"
    assert (leader["metadata"]["name"], leader["spec"]["workloadRef"]) == (
        "infer-leader",
        {"workloadName": "infer", "templateName": "leader"},
    )
    assert workers["metadata"]["name"] == "infer-workers" and "workloadRef" not in workers["spec"]
    assert {c["type"] for g in (leader, workers) for c in g["status"]["conditions"]} == {
        "PodGroupInitiallyScheduled"
    }
    assert doc["created"] == []


def test_json_says_apart_what_a_job_makes_the_dry_run_create(invoke: Invoke) -> None:
    run = invoke(
        "place", EXAMPLES / "job-one-rack.yaml", "--cluster", EXAMPLES / "cluster.yaml", "-o", "json"
    )
    assert run.exit_code == 0, run.stderr
    doc = json.loads(run.stdout)
    assert doc["podGroups"] == []
    assert [(o["kind"], o["metadata"]["name"]) for o in doc["created"]] == [
        ("Workload", "llm-train"),
        ("PodGroup", "llm-train"),
    ]
    assert doc["created"][1]["status"]["conditions"][0]["status"] == "True"


def test_compile_prints_the_input_as_written_then_what_the_dry_run_creates(
    invoke: Invoke, tmp_path: Path
) -> None:
    """1.35 pods naming a Workload template: the PodGroup read for them is created, said apart."""
    source = tmp_path / "w.yaml"
    source.write_text(
        """apiVersion: scheduling.k8s.io/v1beta1
kind: Workload
metadata: {name: w, namespace: ml}
spec:
  podGroupTemplates:
  - {name: workers, schedulingPolicy: {gang: {minCount: 1}}}
---
apiVersion: v1
kind: Pod
metadata: {name: p-0, namespace: ml}
spec:
  workloadRef: {name: w, podGroup: workers}
  containers: [{name: c, image: x}]
""",
        encoding="utf-8",
    )
    for target in ((), ("--to", "kube")):
        run = invoke("compile", source, *target)
        assert run.exit_code == 0, run.stderr
        written, created = run.stdout.split("# created by the dry run, not in the input (1 objects):\n")
        assert [d["kind"] for d in yaml.safe_load_all(written) if d] == ["Workload", "Pod"]
        (group,) = yaml.safe_load_all(created)
        assert (group["kind"], group["metadata"]["name"]) == ("PodGroup", "w-workers")
