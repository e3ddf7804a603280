"""``toposched place --policy``: the policy a workload names itself (``toposched.io/policy``) comes
first, the flag next, the front end's default last (binpack for KAI inputs)."""

from __future__ import annotations

from pathlib import Path

from .conftest import REPO, Invoke
from .test_place import place_json

JOB = REPO / "examples" / "kueue" / "job-rack.yaml"
CLUSTER = REPO / "src" / "toposched" / "samples" / "cluster.yaml"
KAI = (
    REPO / "examples" / "kai" / "zone-ab-job.yaml",
    "--cluster",
    REPO / "examples" / "kai" / "zone-ab-cluster.yaml",
)


def named(tmp_path: Path, policy: str) -> Path:
    """The Kueue example Job, naming ``policy`` in its own metadata."""
    text = JOB.read_text(encoding="utf-8")
    out = tmp_path / "named.yaml"
    out.write_text(
        text.replace("metadata:\n", f"metadata:\n  annotations:\n    toposched.io/policy: {policy}\n", 1)
    )
    return out


def test_the_workloads_own_policy_comes_before_the_flag(invoke: Invoke, tmp_path: Path) -> None:
    """The flag once won over everything, the workload's own choice included."""
    job = named(tmp_path, "leastfree")
    code, doc = place_json(invoke, job, "--cluster", CLUSTER, "--policy", "bestfit")
    assert (code, doc["policy"]) == (0, "leastfree")


def test_the_flag_comes_before_the_front_ends_default(invoke: Invoke) -> None:
    assert place_json(invoke, *KAI)[1]["policy"] == "binpack"
    assert place_json(invoke, *KAI, "--policy", "bestfit")[1]["policy"] == "bestfit"


def test_a_policy_the_workload_names_must_exist(invoke: Invoke, tmp_path: Path) -> None:
    run = invoke("place", named(tmp_path, "tightest"), "--cluster", CLUSTER)
    assert run.exit_code == 2
    assert (
        "metadata.annotations[toposched.io/policy]" in run.stderr or "unknown policy 'tightest'" in run.stderr
    )
