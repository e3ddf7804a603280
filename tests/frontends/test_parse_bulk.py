"""The bulk reader of large YAML lists (rapidyaml, then JSON) reads what the event reader reads."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toposched.frontends.parse import DEFAULT_LIMITS, InputLimits, Parsed, parse_stream, yaml_bulk
from toposched.frontends.parse.yaml_events import read_yaml
from toposched.model import SpecError

TEXT_TAGS = {"tag:yaml.org,2002:" + t for t in ("str", "timestamp", "value")}
# What rapidyaml writes as a JSON literal when plain (an empty value as null): text in JSON only when quoted.
JSON_LITERAL = re.compile(r"|true|false|null|-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?")


def resolved(text: str) -> str:
    tag: str = yaml.SafeLoader("").resolve(yaml.ScalarNode, text, (True, False))
    return tag


# Strings made of what numbers, booleans, nulls and the YAML indicators are made of.
SCALAR_LIKE = st.one_of(
    st.text(st.sampled_from("-+.0123456789_:eExXbBoO~<*!&"), max_size=8),
    st.sampled_from(
        ["yes", "Yes", "no", "NO", "on", "Off", "true", "True", "false", "null", "Null", "~", ".inf"]
    ),
)


@given(SCALAR_LIKE)
def test_a_suspect_is_what_pyyaml_reads_as_other_than_text_and_json_as_no_literal(text: str) -> None:
    other_than_text = resolved(text) not in TEXT_TAGS and JSON_LITERAL.fullmatch(text) is None
    assert yaml_bulk.suspect(text) == (other_than_text or text.startswith("*"))


@given(SCALAR_LIKE | st.text(max_size=6))
def test_a_key_reads_as_text_when_pyyaml_resolves_it_to_text(key: str) -> None:
    assert yaml_bulk.reads_as_text(key) == (resolved(key) in TEXT_TAGS and not key.startswith("*"))


# -- the bulk reader against the event reader ---------------------------------------------------

PLAIN_WORDS = [
    "yes", "True", "off", "~", "Null", "010", "0x1F", "1_000", "12:30", "1e3", "1.0e3", "1.5", "-0",
    "8", "true", "null", ".inf", ".5", "+1", "1.", "<<", "=", "2026-10-01T08:00:00Z", "10.0.0.1",
    "64Gi", "250m", "nvidia.com/gpu", "a b", "x#y",
]  # fmt: skip
TEXT = st.text(
    st.characters(exclude_categories=("Cc", "Cf", "Cs", "Zl", "Zp"), exclude_characters="\t"), max_size=10
)


@st.composite
def scalar(draw: st.DrawFn) -> str:
    """A scalar in one of the ways YAML writes one."""
    style = draw(st.sampled_from(["plain", "single", "double", "literal", "folded", "json"]))
    if style == "plain":
        return draw(st.sampled_from(PLAIN_WORDS))
    value = draw(TEXT | st.sampled_from(PLAIN_WORDS))
    if style == "single":
        return "'" + value.replace("'", "''") + "'"
    if style == "double":
        return json.dumps(value, ensure_ascii=draw(st.booleans()))
    if style == "json":  # a whole flow collection
        return json.dumps({"k": [value, 1, None]})
    lines = draw(
        st.lists(
            st.text(st.characters(categories=("L", "N")), min_size=1, max_size=6), min_size=1, max_size=3
        )
    )
    indicator = draw(st.sampled_from(["", "-", "+"]))
    return ("|" if style == "literal" else ">") + indicator + "".join("\n  {indent}" + line for line in lines)


@st.composite
def item(draw: st.DrawFn) -> str:
    """One item of a ``List`` as kubectl prints one: a block mapping, some values nested."""
    keys = draw(
        st.lists(
            st.sampled_from(["name", "status", "value", "count", "labels", "args"]), min_size=1, max_size=5
        )
    )
    lines = []
    for key in keys:
        shape = draw(st.sampled_from(["scalar", "map", "list"]))
        if shape == "scalar":
            lines.append(f"  {key}: " + draw(scalar()).replace("{indent}", ""))
        elif shape == "map":
            lines.append(f"  {key}:")
            for sub in draw(st.lists(st.sampled_from(["a", "b", "c", "True", "8"]), min_size=1, max_size=3)):
                lines.append(f"    {sub}: " + draw(scalar()).replace("{indent}", "  "))
        else:
            lines.append(f"  {key}:")
            lines += [
                "  - " + draw(scalar()).replace("{indent}", "  ") for _ in range(draw(st.integers(1, 3)))
            ]
    lines[0] = "-" + lines[0][1:]
    return "\n".join(lines) + "\n"


def dump(items: list[str], tail: str = 'kind: List\nmetadata:\n  resourceVersion: ""\n') -> bytes:
    return ("apiVersion: v1\nitems:\n" + "".join(items) + tail).encode()


def read(text: bytes, reader: Any) -> tuple[list[tuple[int, Any, int | None, Any]], str | None]:
    """What ``reader`` hands out, and the error it ends with (None without one)."""
    out: list[tuple[int, Any, int | None, Any]] = []
    try:
        for parsed in reader(text):
            head = dict(parsed.head) if parsed.head is not None else None  # as it is when handed out
            out.append((parsed.document, parsed.value, parsed.item, head))
    except SpecError as exc:
        return out, str(exc)
    return out, None


def events(text: bytes) -> Iterator[Parsed]:
    return read_yaml(text, "dump", DEFAULT_LIMITS, stream_items=True)


def bulk(text: bytes) -> Iterator[Parsed]:
    return parse_stream(text, source="dump")


def same(a: Any, b: Any) -> bool:
    """Equal, types included (``True == 1`` and ``1 == 1.0`` in Python)."""
    if isinstance(a, dict):
        return isinstance(b, dict) and list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(map(same, a, b))
    return type(a) is type(b) and (a == b or (a != a and b != b))


@pytest.fixture
def small(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every text read in bulk, in chunks of a few items."""
    monkeypatch.setattr(yaml_bulk, "BULK_FROM", 0)
    monkeypatch.setattr(yaml_bulk, "_CHUNK", 200)


def fell_back(monkeypatch: pytest.MonkeyPatch, text: bytes) -> list[bool]:
    """Records, per read, whether the bulk reader handed over to the event reader (or never started)."""
    calls: list[bool] = []
    real = yaml_bulk.read_yaml

    def spy(data: bytes, *args: Any, **kwargs: Any) -> Iterator[Parsed]:
        if data == text:
            calls.append(True)
        return real(data, *args, **kwargs)

    monkeypatch.setattr(yaml_bulk, "read_yaml", spy)
    return calls


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(item(), min_size=1, max_size=6))  # the fixture only sets module constants
def test_the_bulk_reader_hands_out_what_the_event_reader_does(small: None, items: list[str]) -> None:
    text = dump(items)
    (got, got_error), (want, want_error) = read(text, bulk), read(text, events)
    assert got_error == want_error
    assert len(got) == len(want)
    for (d, value, i, head), (wd, wvalue, wi, whead) in zip(got, want, strict=True):
        assert (d, i) == (wd, wi)
        assert same(value, wvalue)
        assert same(head, whead)  # the document's keys read before its items


def test_a_kubectl_dump_is_read_in_bulk(small: None, monkeypatch: pytest.MonkeyPatch) -> None:
    items = [
        f"- apiVersion: v1\n  kind: Node\n  metadata:\n    labels:\n      kubernetes.io/hostname: n{i}\n"
        f'    name: n{i}\n  status:\n    allocatable:\n      cpu: "64"\n      nvidia.com/gpu: "8"\n'
        f"    conditions:\n    - status: \"True\"\n      type: Ready\n    - status: 'False'\n      type: DiskPressure\n"
        f"    capacity:\n      pods: 110\n    ratio: 0.5\n    unschedulable: false\n    taints: []\n"
        for i in range(5)
    ]
    text = dump(items)
    fallbacks = fell_back(monkeypatch, text)
    values = [p.value for p in parse_stream(text, source="dump")]
    assert not fallbacks
    assert [v["metadata"]["name"] for v in values[:-1]] == [f"n{i}" for i in range(5)]
    assert values[0]["status"]["conditions"][0]["status"] == "True"
    assert values[0]["status"]["capacity"]["pods"] == 110
    assert values[-1] == {
        "apiVersion": "v1",
        "items": [],
        "kind": "List",
        "metadata": {"resourceVersion": ""},
    }


@pytest.mark.parametrize(
    ("line", "value"),
    [
        ("status: True", True),
        ("status: [on, 'on']", [True, "on"]),
        ("ratio: 1e3", "1e3"),
        ("mode: 0755", 493),
        ("label: ~", None),
        ("8: eight", {8: "eight"}),
    ],
)
def test_what_json_reads_otherwise_goes_to_the_event_reader(
    small: None, monkeypatch: pytest.MonkeyPatch, line: str, value: Any
) -> None:
    text = dump(["- name: a\n", f"- name: b\n  {line}\n", "- name: c\n"])
    fallbacks = fell_back(monkeypatch, text)
    values = [p.value for p in parse_stream(text, source="dump")]
    assert fallbacks
    key, _, _ = line.partition(":")
    got = values[1] if key == "8" else values[1][key]
    assert same(got, {"name": "b", **value} if key == "8" else value)
    assert [v.get("name") for v in values[:3]] == ["a", "b", "c"]


@pytest.mark.parametrize(
    "bad",
    [
        "- name: b\n  name: again\n",  # a duplicate key
        "- name: b\n  value: *missing\n",  # an undefined alias
        '- name: b\n  value: "open\n',  # a quote never closed
        "- name: b\n   bad: indentation\n",
    ],
)
def test_a_late_error_is_the_event_readers_after_the_items_before_it(small: None, bad: str) -> None:
    text = dump(["- name: a\n"] * 8 + [bad])
    (got, got_error), (want, want_error) = read(text, bulk), read(text, events)
    assert want_error is not None
    assert got_error == want_error
    assert [g[1] for g in got] == [w[1] for w in want]


def test_nesting_past_the_bound_is_refused_as_the_event_reader_refuses_it(small: None) -> None:
    limits = InputLimits(max_depth=8)
    deep = "- " + "".join(f"{' ' * (2 * k)}k{k}:\n" for k in range(9)).lstrip() + " " * 18 + "v: 1\n"
    text = dump([deep])
    with pytest.raises(SpecError) as bulk_error:
        list(parse_stream(text, source="dump", limits=limits))
    with pytest.raises(SpecError) as event_error:
        list(read_yaml(text, "dump", limits, stream_items=True))
    assert str(bulk_error.value) == str(event_error.value)


@pytest.mark.parametrize(
    ("head", "tail"),
    [
        ("# a dump\n", "kind: List\n"),  # a head of comments only
        ("apiVersion: v1\n", "kind: List\nkind: List\n"),  # a duplicate key after the items
        ("apiVersion: v1\n", "kind: [List\n"),  # a syntax error after the items
    ],
)
def test_the_document_around_the_items_reads_as_the_event_reader_reads_it(
    small: None, head: str, tail: str
) -> None:
    text = (head + "items:\n" + "- name: a\n" * 4 + tail).encode()
    assert read(text, bulk) == read(text, events)


def test_rapidyaml_errors_do_not_reach_stderr(small: None, capfd: pytest.CaptureFixture[str]) -> None:
    text = dump(["- name: a\n", "- name: b\n   bad: indentation\n"])
    with pytest.raises(SpecError):
        list(parse_stream(text, source="dump"))
    assert capfd.readouterr().err == ""
