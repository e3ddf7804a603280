"""Mutated workloads through the service: ``POST /v1/workloads`` on the app as the API tests
build it (2,000 cases). No answer is a server error, and none takes more than the time budget."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient
from hypothesis import given, settings
from tests.api.conftest import ALICE, AUTH, bearer
from tests.api.specs import cluster_yaml

from toposched.api import Limits, create_app
from toposched.intake.cluster import load_cluster
from toposched.scheduler import ManualClock, Scheduler
from toposched.store import MemoryStore

from .mutations import Case, cases
from .test_fuzz_library import BUDGET_SECONDS, FUZZ

ANSWERS = {201, 400, 404, 409, 413, 422}  # stored, or the client's mistake


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    scheduler = Scheduler(MemoryStore(), ManualClock(1000.0))
    scheduler.import_cluster(load_cluster(cluster_yaml()))
    app = create_app(scheduler, AUTH, limits=Limits(max_body_bytes=1 << 20, max_list=50), run_loop=False)
    with TestClient(app, raise_server_exceptions=False) as test_client:
        yield test_client


def spec_text(case: Case) -> str:
    """The case as the JSON body's ``spec`` string: bytes that are not UTF-8 keep their bytes as
    lone surrogates, which JSON escapes as ``\\udcXX``."""
    return case.text if isinstance(case.text, str) else case.text.decode("utf-8", "surrogateescape")


@settings(FUZZ, max_examples=2000)
@given(case=cases())
def test_submit_never_answers_a_server_error(client: TestClient, case: Case) -> None:
    started = time.monotonic()
    body = json.dumps({"spec": spec_text(case)}).encode("ascii")  # \uXXXX escapes, surrogates too
    headers = {**bearer(ALICE), "Content-Type": "application/json"}
    answer = client.post("/v1/workloads", content=body, headers=headers)
    took = time.monotonic() - started
    assert took < BUDGET_SECONDS, f"{took:.1f} s for {case!r}"
    assert "Traceback" not in answer.text
    assert answer.status_code in ANSWERS, f"{answer.status_code} {answer.text[:500]} for {case!r}"
