"""Input sizes as README's "Input limits" gives them, and errors that stay short whatever the
input: a spec or standard input over 64 MiB is refused before it is read (it was read up to
1 GiB), a cluster dump may be larger, and an error lists at most 20 short lines."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

from toposched.intake.parse import parse_documents
from toposched.model.errors import MAX_FIELD_CHARS, MAX_REPORTED_PROBLEMS

from .conftest import EXAMPLES, Invoke

MIB = 1 << 20


def _pod(i: int, api_version: str = "v1") -> dict[str, object]:
    return {
        "apiVersion": api_version,
        "kind": "Pod",
        "metadata": {"name": f"p{i}", "namespace": "default"},
        "spec": {"containers": [{"name": "c", "image": "x"}]},
    }


def test_a_spec_over_64_mib_is_refused_before_it_is_read(
    invoke: Invoke, tmp_path: Path, sample_cluster: Path
) -> None:
    job = tmp_path / "job.yaml"
    with job.open("wb") as file:
        file.truncate(64 * MIB + 1)  # sparse: nothing of it is ever read
    run = invoke("place", job, "--cluster", sample_cluster)
    assert run.exit_code == 2
    assert run.stderr.strip() == (
        f"{job}: is 67108865 bytes; the limit is 67108864 bytes (64 MiB) (split the input into smaller files)"
    )


def test_a_cluster_dump_may_be_larger_than_a_spec(
    invoke: Invoke, tmp_path: Path, sample_cluster: Path
) -> None:
    [listed] = parse_documents(sample_cluster.read_bytes(), source="sample")
    dump = tmp_path / "cluster.json"
    dump.write_text(json.dumps(listed) + " " * (65 * MIB), encoding="utf-8")  # as large as 20k nodes
    run = invoke("place", EXAMPLES / "job-rack.yaml", "--cluster", dump)
    assert run.exit_code == 0, run.stderr
    assert "placed 16 pods" in run.stdout


def test_an_input_of_many_objects_gets_a_short_error(
    invoke: Invoke, tmp_path: Path, sample_cluster: Path
) -> None:
    """20,000 Jobs in one List: the error named every one of them (a 100 kB line)."""
    jobs = [{"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": f"j{i}"}} for i in range(20_000)]
    spec = tmp_path / "jobs.json"
    spec.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": jobs}), encoding="utf-8")
    run = invoke("place", spec, "--cluster", sample_cluster)
    assert run.exit_code == 2
    assert run.stderr.splitlines() == [
        "the input holds 20000 objects (20000 Job)"
        " (put one workload per file; only the Pods of one pod group may share a file)"
    ]


def test_an_input_with_many_problems_lists_the_first_and_counts_the_rest(
    invoke: Invoke, tmp_path: Path, sample_cluster: Path
) -> None:
    pods = [_pod(i, api_version="v2") for i in range(5000)]
    spec = tmp_path / "pods.json"
    spec.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": pods}), encoding="utf-8")
    run = invoke("place", spec, "--cluster", sample_cluster)
    assert run.exit_code == 2
    lines = run.stderr.splitlines()
    assert len(lines) == MAX_REPORTED_PROBLEMS
    assert lines[0].startswith('items[0].apiVersion: a Pod has apiVersion "v1"')
    counted = re.fullmatch(
        r"and (\d+) more problems \(fix the ones above and run again to see the rest\)", lines[-1]
    )
    assert counted is not None and int(counted[1]) >= 5000 - (MAX_REPORTED_PROBLEMS - 1)


def test_a_huge_value_in_an_error_is_cut_short(invoke: Invoke, tmp_path: Path, sample_cluster: Path) -> None:
    spec = tmp_path / "job.json"
    spec.write_text(json.dumps({"apiVersion": "batch/v1", "kind": "J" * 1_000_000}), encoding="utf-8")
    run = invoke("place", spec, "--cluster", sample_cluster)
    assert run.exit_code == 2
    assert 0 < len(run.stderr) < 4 * MAX_FIELD_CHARS
    assert "more characters]" in run.stderr


def test_standard_input_is_bounded_like_a_file(invoke: Invoke, sample_cluster: Path) -> None:
    """``cat /dev/zero | toposched place -`` was read whole into memory."""
    run = invoke("place", "-", "--cluster", sample_cluster, stdin="#" * (64 * MIB + 1))
    assert run.exit_code == 2
    assert run.stderr.startswith("-: is more than 67108864 bytes; the limit is 67108864 bytes (64 MiB)")


def test_the_device_dev_zero_is_refused_at_the_limit(invoke: Invoke, sample_cluster: Path) -> None:
    if not os.path.exists("/dev/zero"):
        return
    run = invoke("place", "/dev/zero", "--cluster", sample_cluster)
    assert run.exit_code == 2
    assert run.stderr.startswith("/dev/zero: is more than 67108864 bytes")


def test_warnings_are_held_to_the_same_bounds(invoke: Invoke, tmp_path: Path, sample_cluster: Path) -> None:
    """500 hostname label values each on two nodes: one warning each, all printed before."""
    [listed] = parse_documents(sample_cluster.read_bytes(), source="sample")
    levels = {
        "topology.kubernetes.io/zone": "z9",
        "cloud.provider.com/topology-block": "z9-b1",
        "cloud.provider.com/topology-rack": "z9-b1-r1",
    }
    partial = [
        {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {"name": f"{twin}{i}", "labels": {**levels, "kubernetes.io/hostname": f"h{i}"}},
            "status": {"allocatable": {"cpu": "8", "pods": "110"}},
        }
        for i in range(500)
        for twin in "pq"
    ]
    dump = tmp_path / "cluster.json"
    dump.write_text(json.dumps({**listed, "items": [*listed["items"], *partial]}), encoding="utf-8")
    run = invoke("place", EXAMPLES / "job-rack.yaml", "--cluster", dump)
    assert run.exit_code == 0, run.stderr
    warnings = [line for line in run.stderr.splitlines() if line.startswith("warning: ")]
    assert len(warnings) == MAX_REPORTED_PROBLEMS
    assert "hostname label value 'h0' is used by 2 nodes (p0, q0)" in warnings[0]
    assert warnings[-1] == "warning: and 481 more warnings"


def test_nodes_lacking_the_same_labels_are_one_warning(
    invoke: Invoke, tmp_path: Path, sample_cluster: Path
) -> None:
    [listed] = parse_documents(sample_cluster.read_bytes(), source="sample")
    partial = [
        {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {"name": f"p{i}", "labels": {"topology.kubernetes.io/zone": "z9"}},
            "status": {"allocatable": {"cpu": "8", "pods": "110"}},
        }
        for i in range(500)
    ]
    dump = tmp_path / "cluster.json"
    dump.write_text(json.dumps({**listed, "items": [*listed["items"], *partial]}), encoding="utf-8")
    run = invoke("place", EXAMPLES / "job-rack.yaml", "--cluster", dump)
    assert run.exit_code == 0, run.stderr
    (warning,) = [line for line in run.stderr.splitlines() if line.startswith("warning: ")]
    assert warning.startswith(
        "warning: nodes[p0].metadata.labels: 500 nodes ('p0', 'p1', 'p2' and 497 more) carry "
        "topology.kubernetes.io/zone but lack cloud.provider.com/topology-block"
    )
