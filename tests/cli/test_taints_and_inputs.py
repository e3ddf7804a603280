"""``toposched place`` on inputs new users get wrong: the job given as the cluster file, and GPU
nodes tainted the way GKE taints them, which a spec as written does not tolerate."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from toposched.cli.hints import taint_hint
from toposched.model import Taint, TaintEffect

from .conftest import Invoke
from .test_place_errors import SMALL_CLUSTER, SMALL_JOB

GKE_TAINT = "nvidia.com/gpu=present:NoSchedule"
TAINTED_CLUSTER = SMALL_CLUSTER.replace(
    "status:", "spec:\n  taints:\n  - {key: nvidia.com/gpu, value: present, effect: NoSchedule}\nstatus:"
)


def write(tmp_path: Path, job: str = SMALL_JOB, cluster: str = TAINTED_CLUSTER) -> tuple[Path, Path]:
    (tmp_path / "job.yaml").write_text(job)
    (tmp_path / "cluster.yaml").write_text(cluster)
    return tmp_path / "job.yaml", tmp_path / "cluster.yaml"


def test_the_job_given_as_cluster_file_is_invalid_input(tmp_path: Path, invoke: Invoke) -> None:
    job, _ = write(tmp_path)
    run = invoke("place", job, "--cluster", job, "--topology", "small")
    assert run.exit_code == 2
    assert run.stdout == ""
    assert run.stderr.startswith(f"{job}: the cluster file has no nodes (")


def test_a_taint_on_every_node_leads_the_explanation(tmp_path: Path, invoke: Invoke) -> None:
    job, cluster = write(tmp_path)
    run = invoke("place", job, "--cluster", cluster)
    assert run.exit_code == 3
    # The panel's lines without its border (the YAML keeps its indentation).
    body = [line[2:].rstrip(" │") for line in run.stdout.splitlines() if line.startswith("│ ")]
    body = [line for line in body if line]
    lead = " ".join(body[: body.index("tolerations:")])
    assert lead.startswith(f"every node has the taint {GKE_TAINT}, which the pods do not tolerate")
    assert "add this toleration to the pod template's spec" in lead
    snippet = "\n".join(body[body.index("tolerations:") : body.index("tolerations:") + 5])
    assert yaml.safe_load(snippet) == {
        "tolerations": [
            {"key": "nvidia.com/gpu", "operator": "Equal", "value": "present", "effect": "NoSchedule"}
        ]
    }
    # Capacity is not what keeps the pods out: no shortfall, no best domain.
    assert "short of" not in run.stdout and "best domain" not in run.stdout
    assert f'excluded  2 nodes: taint "{GKE_TAINT}"' in run.stdout


def test_the_engine_reason_stays_kueues(tmp_path: Path, invoke: Invoke) -> None:
    job, cluster = write(tmp_path)
    run = invoke("place", job, "--cluster", cluster, "-o", "json")
    assert run.exit_code == 3
    reason = json.loads(run.stdout)["reason"]
    assert reason == (
        f'topology "small" doesn\'t allow to fit any of 4 pod(s). Total nodes: 2; excluded: taint "{GKE_TAINT}": 2'
    )


def test_the_suggested_toleration_lets_the_job_in(tmp_path: Path, invoke: Invoke) -> None:
    tolerated = SMALL_JOB.replace(
        "    spec:\n",
        "    spec:\n      tolerations:\n      - {key: nvidia.com/gpu, operator: Equal, value: present, "
        "effect: NoSchedule}\n",
        1,
    )
    assert tolerated != SMALL_JOB
    job, cluster = write(tmp_path, job=tolerated)
    assert invoke("place", job, "--cluster", cluster).exit_code == 0


def test_a_taint_on_some_nodes_keeps_the_full_explanation(tmp_path: Path, invoke: Invoke) -> None:
    one_tainted = TAINTED_CLUSTER.replace(
        "spec:\n  taints:\n  - {key: nvidia.com/gpu, value: present, effect: NoSchedule}\n", "", 1
    )
    job, cluster = write(tmp_path, job=SMALL_JOB.replace(": 4\n", ": 8\n"), cluster=one_tainted)
    run = invoke("place", job, "--cluster", cluster)
    assert run.exit_code == 3
    assert "every node has" not in run.stdout
    assert "short of" in run.stdout


@pytest.mark.parametrize(
    ("excluded", "total", "taints"),
    [
        ({f'taint "{GKE_TAINT}"': 3}, 3, [Taint("nvidia.com/gpu", "present")]),
        (
            {'taint "a=1:NoSchedule"': 1, 'taint "b:NoExecute"': 2},
            3,
            [Taint("b", "", TaintEffect.NO_EXECUTE), Taint("a", "1")],
        ),
        ({f'taint "{GKE_TAINT}"': 2, 'resource "nvidia.com/gpu"': 1}, 3, None),
        ({"nodeSelector": 3}, 3, None),
        ({}, 0, None),
    ],
)
def test_taint_hint_only_when_taints_exclude_every_node(
    excluded: dict[str, int], total: int, taints: list[Taint] | None
) -> None:
    hint = taint_hint(excluded, total)
    assert (None if hint is None else [taint for taint, _ in hint.taints]) == taints


def test_a_taint_without_value_is_tolerated_with_exists() -> None:
    hint = taint_hint({'taint "dedicated:NoSchedule"': 1}, 1)
    assert hint is not None
    assert yaml.safe_load(hint.tolerations_yaml()) == {
        "tolerations": [{"key": "dedicated", "operator": "Exists", "effect": "NoSchedule"}]
    }
