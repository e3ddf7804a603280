"""The API's errors stay short whatever the input, as the command line's do: at most 20
problems (the last counting the rest), each field at most 500 characters."""

from __future__ import annotations

import json

from tests.api.conftest import ALICE, Api, bearer

from toposched.model.errors import MAX_FIELD_CHARS, MAX_REPORTED_PROBLEMS


def _submit(api: Api, spec: str) -> tuple[int, dict[str, object]]:
    response = api.client.post("/v1/workloads", json={"spec": spec}, headers=bearer(ALICE))
    return response.status_code, response.json()


def test_many_problems_are_reported_as_the_first_few_and_a_count(api: Api) -> None:
    pods = [{"apiVersion": "v2", "kind": "Pod", "metadata": {"name": f"p{i}"}} for i in range(600)]
    status, body = _submit(api, json.dumps({"apiVersion": "v1", "kind": "List", "items": pods}))
    assert status == 422
    problems = body["problems"]
    assert isinstance(problems, list) and len(problems) == MAX_REPORTED_PROBLEMS
    assert problems[0]["path"] == "items[0].apiVersion"
    assert problems[-1]["message"].startswith("and ") and problems[-1]["message"].endswith(" more problems")


def test_a_huge_value_is_cut_short_in_the_answer(api: Api) -> None:
    status, body = _submit(api, json.dumps({"apiVersion": "batch/v1", "kind": "K" * 50_000}))
    assert status == 422
    assert len(json.dumps(body)) < 4 * MAX_FIELD_CHARS
    assert "more characters]" in json.dumps(body)
