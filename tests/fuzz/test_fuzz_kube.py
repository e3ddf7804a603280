"""Mutated upstream Kubernetes inputs (Workload, PodGroup, CompositePodGroup, Pods, Jobs with
``spec.scheduling``): the examples/kube inputs and the kube conformance cases' objects, changed
as ``mutations`` changes them. 1,000 through the service (``POST /v1/workloads``): no server
error; 1,000 through ``toposched place -o json``'s path (the command's own functions, the file
read included): only the command's exits, a JSON document when placed or refused; a sample
through the command itself. No traceback, no case past the time budget."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
import typer
from fastapi.testclient import TestClient
from hypothesis import given, settings
from tests.api.conftest import ALICE, bearer
from typer.testing import CliRunner

from toposched.cli.inputs import ClusterSource
from toposched.cli.main import app
from toposched.cli.output import to_json
from toposched.cli.place import attempt_placement, kube_report
from toposched.emit.result import result_document
from toposched.model import MAX_PODS_PER_GANG

from .mutations import Case, cases, kube_seeds
from .test_fuzz_api import ANSWERS, client, spec_text
from .test_fuzz_library import BUDGET_SECONDS, FUZZ, within_budget

__all__ = ["client"]  # the service fixture, shared with test_fuzz_api


def test_the_kube_seeds_cover_examples_and_conformance_cases() -> None:
    names = [seed.name for seed in kube_seeds()]
    assert sum(name.startswith("examples/kube/") for name in names) == 3
    assert sum("conformance/cases/kube" in name for name in names) > 100


@settings(FUZZ, max_examples=1000)
@given(case=cases(kube=True))
def test_submitting_kube_inputs_never_answers_a_server_error(client: TestClient, case: Case) -> None:
    started = time.monotonic()
    body = json.dumps({"spec": spec_text(case)}).encode("ascii")
    headers = {**bearer(ALICE), "Content-Type": "application/json"}
    answer = client.post("/v1/workloads", content=body, headers=headers)
    took = time.monotonic() - started
    assert took < BUDGET_SECONDS, f"{took:.1f} s for {case!r}"
    assert "Traceback" not in answer.text
    assert answer.status_code in ANSWERS, f"{answer.status_code} {answer.text[:500]} for {case!r}"


def write(case: Case, folder: Path) -> Path:
    job = folder / "job.yaml"
    job.write_bytes(case.text if isinstance(case.text, bytes) else case.text.encode("utf-8", "surrogatepass"))
    return job


@settings(FUZZ, max_examples=1000)
@given(case=cases(kube=True))
def test_place_json_path_on_kube_inputs_ends_in_an_answer(
    case: Case, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """What ``place -o json`` runs: read and check the files, place, report the PodGroups."""
    job = write(case, tmp_path_factory.mktemp("job"))
    started = time.monotonic()
    try:
        attempt = attempt_placement(
            str(job), ClusterSource(str(case.seed.cluster)), None, None, None, "faithful", MAX_PODS_PER_GANG
        )
    except typer.Exit as refused:  # invalid input: the lines were printed, exit 2
        assert refused.exit_code == 2
        within_budget(started, case)
        return
    document = result_document(attempt.outcome.result, attempt.search)
    if attempt.outcome.frontend == "kube":
        report = kube_report(attempt.outcome, attempt.documents)
        document["podGroups"], document["created"] = list(report.pod_groups), list(report.created)
    json.loads(to_json(document))
    within_budget(started, case)


@settings(FUZZ, max_examples=100)
@given(case=cases(kube=True))
def test_place_command_on_kube_inputs_exits_0_2_or_3_without_a_traceback(
    case: Case, tmp_path_factory: pytest.TempPathFactory
) -> None:
    job = write(case, tmp_path_factory.mktemp("job"))
    started = time.monotonic()
    result = CliRunner().invoke(app, ["place", str(job), "--cluster", str(case.seed.cluster), "-o", "json"])
    within_budget(started, case)
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert result.exit_code in (0, 2, 3), result.output
    assert "Traceback" not in result.output
