"""Kubernetes' string formats with apimachinery's own tables (validate/content kube_test.go and
dns_test.go at v0.37.2) and its messages, word for word."""

from __future__ import annotations

import pytest

from toposched.model import Topology, is_label_key
from toposched.model.k8s_content import (
    FieldErrorType,
    dns1123_label_errors,
    dns1123_subdomain_errors,
    field_error,
    label_key_errors,
    path_segment_errors,
)

LONGEST_KEY = "a" * 253 + "/" + "b" * 63

GOOD_KEYS = [
    "simple",
    "now-with-dashes",
    "1-starts-with-num",
    "1234",
    "simple/simple",
    "now-with-dashes/simple",
    "now-with-dashes/now-with-dashes",
    "now.with.dots/simple",
    "now-with.dashes-and.dots/simple",
    "1-num.2-num/3-num",
    "1234/5678",
    "1.2.3.4/5678",
    "Uppercase_Is_OK_123",
    "example.com/Uppercase_Is_OK_123",
    "requests.storage-foo",
    "a" * 63,
    LONGEST_KEY,
]
BAD_KEYS = [
    "nospecialchars%^=@",
    "cantendwithadash-",
    "-cantstartwithadash-",
    "only/one/slash",
    "Example.com/abc",
    "example_com/abc",
    "example.com/",
    "/simple",
    "a" * 64,
    "a" * 254 + "/abc",
]


@pytest.mark.parametrize("key", GOOD_KEYS, ids=lambda k: k[:40])
def test_label_keys_upstream_accepts(key: str) -> None:
    assert label_key_errors(key) == []
    assert is_label_key(key)


@pytest.mark.parametrize("key", BAD_KEYS, ids=lambda k: k[:40])
def test_label_keys_upstream_refuses(key: str) -> None:
    assert label_key_errors(key)
    assert not is_label_key(key)


def test_a_317_byte_key_is_a_topology_level() -> None:
    assert len(LONGEST_KEY) == 317
    assert Topology.create("t", [LONGEST_KEY]).levels == (LONGEST_KEY,)


@pytest.mark.parametrize(
    ("key", "messages"),
    [
        ("a" * 254 + "/foo", ["prefix part must be no more than 253 bytes"]),
        ("foo/" + "b" * 64, ["name part must be no more than 63 bytes"]),
        ("/simple", ["prefix part must be non-empty"]),
        (
            "example.com/",
            [
                "name part must be non-empty",
                "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and "
                "end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex "
                "used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
            ],
        ),
        (
            "Example.com/Foo",
            [
                "prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric "
                "characters, '-' or '.', and must start and end with an alphanumeric character (e.g. "
                "'example.com', regex used for validation is "
                "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
            ],
        ),
    ],
)
def test_label_key_messages(key: str, messages: list[str]) -> None:
    assert label_key_errors(key) == messages


@pytest.mark.parametrize("value", ["a", "a--1--2--b", "0", "1--a--b--2", "a" * 63])
def test_short_names_accepted(value: str) -> None:
    assert dns1123_label_errors(value) == []


@pytest.mark.parametrize("value", ["", "A", "a-", "-a", "a_b", "a.b", "a b", "a" * 64])
def test_short_names_refused(value: str) -> None:
    assert dns1123_label_errors(value)


def test_short_name_with_dots_says_so() -> None:
    assert dns1123_label_errors("temp.late") == ["must not contain dots"]


def test_long_names() -> None:
    assert dns1123_subdomain_errors("example.com") == []
    assert dns1123_subdomain_errors("w" * 254)[0] == "must be no more than 253 bytes"
    assert dns1123_subdomain_errors("work/load")


@pytest.mark.parametrize(
    ("value", "messages"),
    [("Job", []), (".", ["may not be '.'"]), ("a/b%", ["may not contain '/'", "may not contain '%'"])],
)
def test_path_segment_names(value: str, messages: list[str]) -> None:
    assert path_segment_errors(value) == messages


def test_field_error_bodies() -> None:
    assert field_error(FieldErrorType.REQUIRED) == "Required value"
    assert field_error(FieldErrorType.INVALID, "Foo", "bad") == 'Invalid value: "Foo": bad'
    assert field_error(FieldErrorType.TOO_MANY, 2, "must have at most 1 item") == (
        "Too many: 2: must have at most 1 item"
    )
    assert field_error(FieldErrorType.INVALID, -1, "must be greater than or equal to 1") == (
        "Invalid value: -1: must be greater than or equal to 1"
    )
