"""Inputs the fuzz tests (tests/fuzz) once crashed on: each is now a SpecError naming the field."""

from __future__ import annotations

import pytest

from toposched.intake.parse import parse_documents
from toposched.model import SpecError
from toposched.model.podspec import effective_requests, parse_tolerations


def test_text_with_a_lone_surrogate_is_refused() -> None:
    # a JSON request body may carry "\ud800", which no UTF-8 text holds
    with pytest.raises(SpecError, match=r"spec: holds an invalid character at position 1"):
        parse_documents("\ufeff\ud800kind: Job\n", source="spec")


@pytest.mark.parametrize(
    ("spec", "path"),
    [
        ({"containers": [None]}, "spec.containers[0]"),
        ({"containers": [{"resources": ["cpu"]}]}, "spec.containers[0].resources"),
        ({"containers": [{"resources": {"requests": "4"}}]}, "spec.containers[0].resources.requests"),
        ({"initContainers": [7]}, "spec.initContainers[0]"),
        ({"containers": [], "overhead": [1]}, "spec.overhead"),
    ],
)
def test_pod_spec_parts_that_are_not_mappings_are_problems(spec: dict[str, object], path: str) -> None:
    with pytest.raises(SpecError) as caught:
        effective_requests(spec)
    assert [p.path for p in caught.value.problems] == [path]
    assert "must be a mapping" in caught.value.problems[0].message


def test_toleration_seconds_must_be_whole() -> None:
    with pytest.raises(SpecError, match=r"spec.tolerations\[0\].tolerationSeconds: must be a whole number"):
        parse_tolerations([{"key": "k", "operator": "Exists", "tolerationSeconds": "soon"}])
