"""``api.hot`` serves submit, read and cancel exactly as their FastAPI routes do.

The differential test sends the same request sequences to an app with the hot routes and to one
without (``hot_routes=False``: FastAPI alone), each over its own fresh store and a manual clock,
and compares every answer byte for byte. The property tests check the plain checks against the
pydantic validation they stand in for.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from typing import Annotated, Any

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import Field, TypeAdapter, ValidationError
from tests.api.conftest import ADMIN, ALICE, AUTH, BOB
from tests.api.specs import cluster_yaml, job_yaml

from toposched.api import Limits, create_app
from toposched.api.bodies import SubmitBody, plain_submit
from toposched.api.params import MAX_INT, plain_id
from toposched.intake.cluster import load_cluster
from toposched.scheduler import ManualClock, Scheduler
from toposched.store import MemoryStore

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# What a request may carry; each is one the hot routes serve or one they must hand to FastAPI.
AUTHORIZATIONS = [
    f"Bearer {ALICE}",
    f"Bearer {BOB}",
    f"Bearer {ADMIN}",
    f"bearer  {ALICE} ",
    "Bearer not-a-known-token-000",
    "Bearer ",
    f"Basic {ALICE}",
    None,
]
IDS = [
    "1",
    "2",
    "3",
    "4",
    "0",
    "007",
    "-1",
    "+2",
    "abc",
    "2.0",
    "9223372036854775807",
    "99999999999999999999",
]
CONTENT_TYPES = [
    "application/json",
    None,
    "application/json; charset=utf-8",
    "Application/JSON",
    "text/plain",
    "application/merge-patch+json",
    "application/yaml",  # the body is then the job file itself (api.yaml_submit)
]
SPECS = [
    job_yaml("train", pods=2, gpus=4),
    job_yaml("big", pods=3, gpus=8),
    job_yaml("huge", pods=40, gpus=8),
    "",
    "not: [valid",
    "apiVersion: v1\nkind: Pod\n",
    123,
    None,
]
FIELD_VALUES: dict[str, list[object]] = {
    "priority": [0, 5, -7, 10**9, 10**9 + 1, True, 1.0, 2.5, "3", None],
    "topology": ["default", "nope", "x" * 254, 7, None],
    "kind": ["kueue", "kai", "k" * 65, False, None],
    "extra": ["field"],
}

bodies = st.one_of(
    st.builds(
        lambda spec, extra: {**({} if spec is None else {"spec": spec}), **extra},
        st.sampled_from(SPECS),
        st.dictionaries(
            st.sampled_from(sorted(FIELD_VALUES)),
            st.integers(0, 9),
            max_size=3,
        ).map(lambda picks: {k: FIELD_VALUES[k][i % len(FIELD_VALUES[k])] for k, i in picks.items()}),
    ),
    st.sampled_from([[], None, "spec", [{"spec": "x"}]]),
)


@st.composite
def requests(draw: st.DrawFn) -> tuple[str, str, dict[str, str], bytes | None]:
    """One request: method, path, headers, body (None: no body)."""
    headers = {}
    authorization = draw(st.sampled_from(AUTHORIZATIONS))
    if authorization is not None:
        headers["Authorization"] = authorization
    method = draw(st.sampled_from(["POST", "POST", "GET", "DELETE"]))
    if method != "POST":
        return method, f"/v1/workloads/{draw(st.sampled_from(IDS))}", headers, None
    content_type = draw(st.sampled_from(CONTENT_TYPES))
    if content_type is not None:
        headers["Content-Type"] = content_type
    raw = draw(st.sampled_from([None, b"", b"{not json", b'{"spec": "a", "spec": ""}']))
    body = raw if raw is not None else json.dumps(draw(bodies)).encode()
    return method, "/v1/workloads", headers, body


steps = st.lists(st.one_of(requests(), st.just("cycle")), min_size=1, max_size=14)


@contextmanager
def served(*, hot_routes: bool) -> Iterator[tuple[TestClient, Scheduler]]:
    store = MemoryStore()
    scheduler = Scheduler(store, ManualClock(1000.0))
    scheduler.import_cluster(load_cluster(cluster_yaml()))
    app = create_app(
        scheduler,
        AUTH,
        limits=Limits(max_body_bytes=64 * 1024, max_list=50),
        run_loop=False,
        hot_routes=hot_routes,
    )
    with TestClient(app, raise_server_exceptions=False) as client:
        yield client, scheduler


def answer(client: TestClient, request: tuple[str, str, dict[str, str], bytes | None]) -> dict[str, Any]:
    method, path, headers, body = request
    response = client.request(method, path, headers=headers, content=body)
    kept = ("content-type", "content-length", "www-authenticate", "retry-after")
    return {
        "status": response.status_code,
        "headers": {name: response.headers.get(name) for name in kept},
        "body": response.content,
    }


@SETTINGS
@given(steps)
def test_hot_routes_answer_every_request_like_the_fastapi_routes(
    sequence: list[tuple[str, str, dict[str, str], bytes | None] | str],
) -> None:
    with ExitStack() as stack:
        hot, hot_scheduler = stack.enter_context(served(hot_routes=True))
        plain, plain_scheduler = stack.enter_context(served(hot_routes=False))
        for step in sequence:
            if isinstance(step, str):  # a scheduling cycle, so reads and cancels see placements
                assert hot_scheduler.cycle() == plain_scheduler.cycle()
                continue
            assert answer(hot, step) == answer(plain, step), step


def test_the_openapi_document_still_describes_the_hot_routes() -> None:
    with served(hot_routes=True) as (hot, _), served(hot_routes=False) as (plain, _):
        document = hot.get("/openapi.json").json()
        assert document == plain.get("/openapi.json").json()
    operations = document["paths"]
    assert "post" in operations["/v1/workloads"]
    assert {"get", "delete"} <= set(operations["/v1/workloads/{workload_id}"])


@pytest.mark.parametrize("hot_routes", [True, False])
def test_an_oversized_submission_is_refused_before_any_route(hot_routes: bool) -> None:
    with served(hot_routes=hot_routes) as (client, scheduler):
        body = json.dumps({"spec": "x" * (64 * 1024)})
        response = client.post("/v1/workloads", content=body, headers={"Authorization": f"Bearer {ALICE}"})
        assert response.status_code == 413
        assert response.json()["error"] == "too_large"
        assert scheduler.list() == []


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=300),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=10), inner, max_size=4),
    max_leaves=8,
)
submit_like = st.fixed_dictionaries(
    {},
    optional={
        "spec": json_values,
        "priority": st.one_of(st.integers(-(10**9) - 2, 10**9 + 2), json_values),
        "topology": st.one_of(st.text(max_size=260), json_values),
        "kind": st.one_of(st.text(max_size=70), json_values),
        "other": json_values,
    },
)


@settings(max_examples=400, deadline=None)
@given(st.one_of(submit_like, json_values))
def test_plain_submit_gives_what_pydantic_gives(raw: object) -> None:
    fields = plain_submit(raw)
    if fields is None:
        return  # FastAPI's route judges this body
    assert fields == SubmitBody.model_validate(raw).fields()


WORKLOAD_ID: TypeAdapter[int] = TypeAdapter(Annotated[int, Field(ge=0, le=MAX_INT)])


@settings(max_examples=400, deadline=None)
@given(st.one_of(st.integers(-5, 2**64).map(str), st.text(max_size=25), st.from_regex(r"0*[0-9]{1,20}")))
def test_plain_id_gives_what_the_path_parameter_gives(text: str) -> None:
    value = plain_id(text)
    if value is None:
        return  # FastAPI's route judges this id
    try:
        assert value == WORKLOAD_ID.validate_python(text)
    except ValidationError:
        pytest.fail(f"plain_id accepted {text!r}, which the route refuses")


@pytest.mark.parametrize("hot_routes", [True, False])
def test_cancelling_another_users_workload_is_not_found_like_reading_it(hot_routes: bool) -> None:
    with served(hot_routes=hot_routes) as (client, scheduler):
        alice, bob = {"Authorization": f"Bearer {ALICE}"}, {"Authorization": f"Bearer {BOB}"}
        submitted = client.post("/v1/workloads", json={"spec": job_yaml()}, headers=alice).json()
        cancel = client.delete(f"/v1/workloads/{submitted['id']}", headers=bob)
        read = client.get(f"/v1/workloads/{submitted['id']}", headers=bob)
        assert cancel.status_code == read.status_code == 404
        assert cancel.json() == read.json()
        assert scheduler.get(submitted["id"]).state == "pending"
