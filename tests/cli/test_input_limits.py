"""Input sizes as README's "Input limits" gives them: a spec or standard input over 64 MiB is
refused before it is read (it was read up to 1 GiB), a cluster dump may be larger."""

from __future__ import annotations

import json
import os
from pathlib import Path

from toposched.frontends.parse import parse_documents

from .conftest import EXAMPLES, Invoke

MIB = 1 << 20


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
