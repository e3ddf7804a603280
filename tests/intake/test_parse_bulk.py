"""The bulk reader of large YAML lists (rapidyaml, then JSON) reads what the event reader reads."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toposched.intake.parse import DEFAULT_LIMITS, InputLimits, Parsed, parse_stream, yaml_bulk
from toposched.intake.parse.yaml_events import read_yaml
from toposched.model import SpecError

TEXT_TAGS = {"tag:yaml.org,2002:" + t for t in ("str", "timestamp", "value")}


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


@given(SCALAR_LIKE | st.text(max_size=6))
def test_a_key_reads_as_text_when_pyyaml_resolves_it_to_text(key: str) -> None:
    assert yaml_bulk.reads_as_text(key) == (resolved(key) in TEXT_TAGS and not key.startswith("*"))


# -- the bulk reader against the event reader ---------------------------------------------------

PLAIN_WORDS = [
    "yes", "True", "off", "~", "Null", "010", "0x1F", "1_000", "12:30", "1e3", "1.0e3", "1.5", "-0",
    "8", "true", "null", ".inf", ".5", "+1", "1.", "<<", "=", "2026-10-01T08:00:00Z", "10.0.0.1",
    "64Gi", "250m", "nvidia.com/gpu", "a b", "x#y", "inf", "nan", "-infinity", ".NaN", "-.5",
    "-.5e+3", "1 # one", "yes #c", "&x yes", "*x", "!!str 5", "[on, 1]", "{a: yes}", "[]", "{}",
    "@c", "]", "|2", "? a", "'a':b", "\"a\":yes",
]  # fmt: skip
TEXT = st.text(
    st.characters(exclude_categories=("Cc", "Cf", "Cs", "Zl", "Zp"), exclude_characters="\t"), max_size=10
)


# Lines of a literal block scalar that would begin odd values anywhere else.
ODD_LINES = [
    '{"a":yes,"b":[1,{"c":null}]}', "[on, 1]", "- x", "-1", "# c", "&a b", "*b", "!t 5", "%d", "@x",
    "`x", "? k", ": v", "|", ">-", "yes", "---", "...", "k: v", "'a':b", "  indented", "x #y", "{}",
]  # fmt: skip


@st.composite
def scalar(draw: st.DrawFn) -> str:
    """A scalar in one of the ways YAML writes one."""
    style = draw(st.sampled_from(["plain", "single", "double", "literal", "folded", "json", "annotation"]))
    if style == "plain":
        return draw(st.sampled_from(PLAIN_WORDS))
    if style == "annotation":  # a literal block of lines that would be odd elsewhere
        lines = draw(st.lists(st.sampled_from(ODD_LINES) | TEXT, min_size=1, max_size=4))
        gaps = draw(st.lists(st.sampled_from(["", "\n"]), min_size=len(lines), max_size=len(lines)))
        indicator = draw(st.sampled_from(["", "-", "+"]))
        return (
            "|"
            + indicator
            + "".join(f"{gap}\n  {{indent}}{line}" for gap, line in zip(gaps, lines, strict=True))
        )
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


@pytest.fixture
def small(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every text read in bulk, in chunks of a few items."""
    monkeypatch.setattr(yaml_bulk, "BULK_FROM", 0)
    monkeypatch.setattr(yaml_bulk, "_CHUNK", 200)


def ways_read(monkeypatch: pytest.MonkeyPatch, text: bytes) -> list[str]:
    """Records how ``text`` is read: "bulk" when the bulk reader starts on its items, "handed
    over" when it gives them to the event reader after that."""
    ways: list[str] = []
    chunks, read_yaml_there = yaml_bulk._chunks, yaml_bulk.read_yaml

    def spy_chunks(*args: Any) -> Iterator[list[Any]]:
        ways.append("bulk")
        return chunks(*args)

    def spy_read_yaml(data: bytes, *args: Any, **kwargs: Any) -> Iterator[Parsed]:
        if data == text:
            ways.append("handed over")
        return read_yaml_there(data, *args, **kwargs)

    monkeypatch.setattr(yaml_bulk, "_chunks", spy_chunks)
    monkeypatch.setattr(yaml_bulk, "read_yaml", spy_read_yaml)
    return ways


def read_in_bulk(monkeypatch: pytest.MonkeyPatch, text: bytes) -> list[Any]:
    """The values ``parse_stream`` hands out for ``text``, which the bulk reader reads alone."""
    ways = ways_read(monkeypatch, text)
    values = [parsed.value for parsed in parse_stream(text, source="dump")]
    assert ways == ["bulk"]
    return values


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(item(), min_size=1, max_size=6))  # the fixture only sets module constants
def test_the_bulk_reader_hands_out_what_the_event_reader_does(small: None, items: list[str]) -> None:
    text = dump(items)
    (got, got_error), (want, want_error) = read(text, bulk), read(text, events)
    assert got_error == want_error
    assert len(got) == len(want)
    for (d, value, i, head), (wd, wvalue, wi, whead) in zip(got, want, strict=True):
        assert (d, i) == (wd, wi)
        assert yaml_bulk.same_values(value, wvalue)
        assert yaml_bulk.same_values(head, whead)  # the document's keys read before its items


def test_a_kubectl_dump_is_read_in_bulk(small: None, monkeypatch: pytest.MonkeyPatch) -> None:
    items = [
        f"- apiVersion: v1\n  kind: Node\n  metadata:\n    labels:\n      kubernetes.io/hostname: n{i}\n"
        f'    name: n{i}\n  status:\n    allocatable:\n      cpu: "64"\n      nvidia.com/gpu: "8"\n'
        f"    conditions:\n    - status: \"True\"\n      type: Ready\n    - status: 'False'\n      type: DiskPressure\n"
        f"    capacity:\n      pods: 110\n    ratio: 0.5\n    unschedulable: false\n    taints: []\n"
        for i in range(5)
    ]
    values = read_in_bulk(monkeypatch, dump(items))
    assert [v["metadata"]["name"] for v in values[:-1]] == [f"n{i}" for i in range(5)]
    assert values[0]["status"]["conditions"][0]["status"] == "True"
    assert values[0]["status"]["capacity"]["pods"] == 110
    assert values[-1] == {
        "apiVersion": "v1",
        "items": [],
        "kind": "List",
        "metadata": {"resourceVersion": ""},
    }


def test_an_annotation_holding_json_is_read_in_bulk(small: None, monkeypatch: pytest.MonkeyPatch) -> None:
    applied = '{"apiVersion":"v1","kind":"Pod","metadata":{"annotations":{},"name":"p%d"},"spec":[1,true]}'
    items = [
        "- apiVersion: v1\n  kind: Pod\n  metadata:\n    annotations:\n"
        f"      kubectl.kubernetes.io/last-applied-configuration: |\n        {applied % i}\n"
        f"    name: p{i}\n  spec:\n    nodeName: n{i}\n"
        for i in range(5)
    ]
    text = dump(items)
    got = read_in_bulk(monkeypatch, text)
    assert read(text, bulk) == read(text, events)
    annotation = got[3]["metadata"]["annotations"]["kubectl.kubernetes.io/last-applied-configuration"]
    assert annotation == applied % 3 + "\n"


@pytest.mark.parametrize(
    "text",
    [
        dump(["- a: |\n    {x\n  b: [on]\n"]),  # odd values after the body still count
        dump(["- a: |\n    {x\n   [y\n"]),  # a line short of the body's indentation ends it
        dump(["- a: |\n    {x\n\n  b: &c 1\n"]),
        dump(["- - a: |\n      {x\n"]),  # after an entry's "- ": not a simple key line
        dump(["- a: >\n    {x\n"]),  # folded, not literal
    ],
)
def test_what_follows_a_literal_body_is_still_checked(small: None, text: bytes) -> None:
    (got, got_error), (want, want_error) = read(text, bulk), read(text, events)
    assert got_error == want_error
    assert all(yaml_bulk.same_values(list(g), list(w)) for g, w in zip(got, want, strict=True))


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
def test_plain_scalars_read_apart_go_to_the_event_reader(
    small: None, monkeypatch: pytest.MonkeyPatch, line: str, value: Any
) -> None:
    text = dump(["- name: a\n", f"- name: b\n  {line}\n", "- name: c\n"])
    ways = ways_read(monkeypatch, text)
    values = [p.value for p in parse_stream(text, source="dump")]
    assert ways in ([], ["bulk", "handed over"])  # declined at once, or handed over
    key, _, _ = line.partition(":")
    got = values[1] if key == "8" else values[1][key]
    assert yaml_bulk.same_values(got, {"name": "b", **value} if key == "8" else value)
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


def wrap(items: bytes) -> bytes:
    return b"apiVersion: v1\nitems:\n" + items + b"kind: List\n"


@pytest.mark.parametrize(
    "text",
    [
        wrap(b"- a: inf\n  b: nan\n  c: -infinity\n"),  # rapidyaml writes .inf, .nan
        wrap(b"- a: .Inf\n  b: .NaN\n  c: -.INF\n"),
        wrap(b"- a: -.5\n  b: -.5e+3\n"),  # rapidyaml writes -0.5
        wrap(b"- a: &x yes\n  b: [&y 010]\n"),  # anchored scalars
        wrap(b'- {"a":yes, "b":010}\n'),  # JSON-like keys
        wrap(b'- b: &x 1\n  c: {"a":*x}\n'),
        wrap(b'- {"a":!!str 5, "b":!!float 1}\n'),  # tags
        wrap(b"- a: |2\n     \n  b: 1\n"),  # an indentation indicator, a line of spaces
        wrap(b"- \n>\n"),  # a block scalar header on a line of its own
        wrap(b"- a: " + b"[" * 62 + b"]" * 62 + b"\n"),  # flow nesting past the bound
        wrap(b"- a: @c\n"),  # reserved indicators
        wrap(b"- a: ]\n"),
        wrap(b"- [x:]\n"),
        wrap(b"- a: &a.b foo\n"),
        wrap(b"- a: |2'\n"),
        wrap(b'- \n"x"\n'),  # a value at column 0: not the item's
        b'apiVersion: v1\n"items":\n- a: yes\nitems:\n- b: 1\nkind: List\n',  # items twice
        wrap(b"- a:\n    yes\n"),  # a plain scalar on a line of its own
        wrap(b"- a: 1 # one\n  b: 0x1F # hex\n"),
    ],
)
def test_yaml_the_two_parsers_read_apart_is_read_by_the_event_reader(small: None, text: bytes) -> None:
    (got, got_error), (want, want_error) = read(text, bulk), read(text, events)
    assert got_error == want_error
    assert len(got) == len(want)
    assert all(yaml_bulk.same_values(list(g), list(w)) for g, w in zip(got, want, strict=True))


def test_flow_nesting_is_bounded_as_the_event_reader_bounds_it(small: None) -> None:
    text, limits = wrap(b"- a: [[[[[[[[[[]]]]]]]]]]\n"), InputLimits(max_depth=8)
    with pytest.raises(SpecError) as bulk_error:
        list(parse_stream(text, source="dump", limits=limits))
    with pytest.raises(SpecError) as event_error:
        list(read_yaml(text, "dump", limits, stream_items=True))
    assert str(bulk_error.value) == str(event_error.value)


@pytest.mark.skipif(not Path("/proc/self/statm").exists(), reason="reads the resident set from /proc")
def test_reading_chunks_does_not_keep_their_memory() -> None:
    """rapidyaml's emitters that return their text never free it: 100 chunks of 256 KiB would
    keep tens of MB."""
    item = "- kind: Node\n  metadata:\n    name: {}\n    labels:\n" + "      k{}: v\n" * 40
    text = "".join(item.format(i, *range(40)) for i in range(500)).encode()
    assert len(text) > 250_000

    def resident() -> float:
        return int(Path("/proc/self/statm").read_text().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20

    yaml_bulk._chunk(text, yaml_bulk._Checks())
    before = resident()
    for _ in range(100):
        yaml_bulk._chunk(text, yaml_bulk._Checks())
    assert resident() - before < 15
