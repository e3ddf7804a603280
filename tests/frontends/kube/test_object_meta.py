"""An object's metadata as the API server reads it (``toposched.model.object_meta``). Each row
was found by the differential validation against kube-apiserver v1.37.2 (diffval seed 230): the
server refused the object at the field named, toposched took it."""

from __future__ import annotations

from typing import Any

import pytest

from toposched.frontends.kube import validate_create
from toposched.model import WorkloadSpecError

POD_GROUP: dict[str, Any] = {
    "apiVersion": "scheduling.k8s.io/v1beta1",
    "kind": "PodGroup",
    "metadata": {"name": "pg", "namespace": "ns"},
    "spec": {"schedulingPolicy": {"gang": {"minCount": 1}}},
}


def _with(**metadata: Any) -> dict[str, Any]:
    return {**POD_GROUP, "metadata": {"name": "pg", "namespace": "ns", **metadata}}


ROWS = [
    (
        "label-value-with-space",
        _with(labels={"example.com/Rack_1.x": "a b"}),
        "metadata.labels",
        "a valid label must be",
    ),
    (
        "label-value-too-long",
        _with(labels={"app": "v" * 64}),
        "metadata.labels",
        "must be no more than 63 bytes",
    ),
    ("label-key-bad-name", _with(labels={"-rack": "v"}), "metadata.labels", "name part must consist of"),
    ("annotation-key-bad", _with(annotations={"a/b/c": "v"}), "metadata.annotations", "a valid label key"),
    (
        "annotations-too-large",
        _with(annotations={"a": "x" * 262144}),
        "metadata.annotations",
        "Too long: may not be more than 262144 bytes",
    ),
    ("generate-name-bad", _with(generateName="a..b"), "metadata.generateName", "RFC 1123 subdomain"),
    (
        "unknown-field",
        _with(bogus="x"),
        "metadata.bogus",
        'strict decoding error: unknown field "metadata.bogus"',
    ),
    (
        "label-value-not-a-string",
        _with(labels={"app": 7}),
        "metadata.labels",
        "cannot unmarshal number into Go struct field ObjectMeta.metadata.labels of type string",
    ),
    (
        "generate-name-not-a-string",
        _with(generateName=True),
        "metadata.generateName",
        "cannot unmarshal bool into Go struct field ObjectMeta.metadata.generateName of type string",
    ),
]


@pytest.mark.parametrize(
    ("obj", "field", "fragment"), [row[1:] for row in ROWS], ids=[row[0] for row in ROWS]
)
def test_metadata_the_api_server_refuses_is_refused_at_its_field(
    obj: dict[str, Any], field: str, fragment: str
) -> None:
    with pytest.raises(WorkloadSpecError) as refused:
        validate_create(obj)
    found = [(p.path, p.message) for p in refused.value.problems]
    assert any(path == field and fragment in message for path, message in found), found


def test_a_decoding_error_comes_alone_as_the_api_server_answers() -> None:
    obj = _with(bogus="x", labels={"app": "a b"})
    obj["spec"] = {"schedulingPolicy": {"gang": {"minCount": 0}}}
    with pytest.raises(WorkloadSpecError) as refused:
        validate_create(obj)
    assert [p.path for p in refused.value.problems] == ["metadata.bogus"]


def test_a_generate_name_with_a_trailing_dash_is_a_valid_prefix() -> None:
    obj = _with(generateName="pg-")
    validate_create(obj)


def test_status_is_decoded_but_not_validated_on_create() -> None:
    """diffval seed 230 #64: the server resets a PodGroup's status on create, so an invalid one
    is no reason to refuse it; a field the status type lacks still does not decode."""
    obj = {
        **POD_GROUP,
        "status": {"resourceClaimStatuses": [{"name": "c", "resourceClaimName": "Bad/Name"}] * 2},
    }
    validate_create(obj)
    with pytest.raises(WorkloadSpecError) as refused:
        validate_create({**POD_GROUP, "status": {"bogus": 1}})
    assert [p.path for p in refused.value.problems] == ["status.bogus"]
