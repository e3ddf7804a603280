"""The parser reads YAML in one pass over libyaml's events and JSON with the json module; both
give the values PyYAML's own loader gives, and both are held to the same bounds (size, nesting,
duplicate keys). List items can be streamed one by one."""

from __future__ import annotations

import json
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from toposched.intake.parse import InputLimits, parse_documents, parse_stream
from toposched.intake.parse.json_text import nesting_depth, read_json
from toposched.intake.parse.yaml_events import twin_load
from toposched.model import SpecError


def problem(text: str | bytes, limits: InputLimits | None = None) -> str:
    with pytest.raises(SpecError) as err:
        parse_documents(text, source="spec", **({"limits": limits} if limits else {}))
    (only,) = err.value.problems
    return str(only)


# Keys and scalars as specs have them; floats only in the form YAML 1.1 and JSON read alike, and
# no control or line-separator characters, which YAML refuses or folds inside JSON's strings.
TEXT = st.text(st.characters(exclude_categories=("Cc", "Cf", "Cs", "Zl", "Zp")), max_size=12)
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**63), 2**63),
    TEXT,
    st.sampled_from(
        [
            "1.5",
            "yes",
            "no",
            "~",
            "0x1F",
            "1_000",
            "2024-01-01",
            "=",
            "<<",
            "a: b",
            "- x",
            "#",
            '\\"[',
            "\\\\",
        ]
    ),
    st.sampled_from([0.5, -2.25, 1e3, 123.0]),
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(TEXT, inner, max_size=4),
    max_leaves=25,
)


@settings(max_examples=150, deadline=None)
@given(st.lists(VALUES, min_size=1, max_size=3), st.booleans())
def test_the_event_reader_builds_what_pyyaml_builds(documents: list[Any], flow: bool) -> None:
    text = yaml.safe_dump_all(documents, default_flow_style=flow, allow_unicode=True)
    assert parse_documents(text, source="spec") == twin_load(text)


@settings(max_examples=150, deadline=None)
@given(VALUES.filter(lambda v: isinstance(v, dict | list)), st.sampled_from([None, 2]))
def test_json_reads_as_its_yaml_reading(document: Any, indent: int | None) -> None:
    text = json.dumps(document, indent=indent, ensure_ascii=False)  # libyaml refuses \\ud800 pairs
    assert parse_documents(text, source="spec") == twin_load(text) == [document]


@pytest.mark.parametrize(
    "text",
    [
        "base: &b {cpu: 1, mem: 2}\nx: {<<: *b, mem: 3}\n",
        "a: &a {p: 1}\nb: &b {p: 2, q: 2}\nc: {<<: [*a, *b], r: 3}\n",
        "list: &l [1, 2]\nsame: *l\nscalar: &s hello\nagain: *s\n",
        "t: !!str 12\nb: !!binary aGVsbG8=\nd: 2024-01-01\ni: !!int '7'\nf: !!float 1.5\n",
        "? complex\n: value\nempty:\nnull_key: ~\n",
        "---\na: 1\n---\n---\n- b\n...\n",
        "{flow: [style, yaml], 'quoted': \"text\"}\n",
        "\ufeffkind: Node\n",
    ],
)
def test_yaml_features_read_as_pyyaml_reads_them(text: str) -> None:
    assert parse_documents(text, source="spec") == twin_load(text)


def test_json_is_read_by_the_json_decoder() -> None:
    # YAML 1.1 reads 1e5 as text; JSON reads it as a number
    assert parse_documents('{"n": 1e5, "u": "\\u00e9"}', source="spec") == [{"n": 100000.0, "u": "é"}]


def test_flow_yaml_that_looks_like_json_is_read_as_yaml() -> None:
    assert parse_documents("{a: 1, b: [x, y]}", source="spec") == [{"a": 1, "b": ["x", "y"]}]
    assert parse_documents('{"a": NaN}', source="spec") == [{"a": "NaN"}]


def test_json_duplicate_keys_are_refused_with_both_lines() -> None:
    assert problem('{\n  "a": 1,\n  "b": {"c": 1},\n  "a": 2\n}') == (
        "spec:4:3: duplicate key 'a' (first at line 2) (keep one of them: YAML would silently use the last)"
    )


def test_json_nesting_is_bounded() -> None:
    assert "spec:1:65: is nested more than 64 levels deep" in problem("[" * 100 + "]" * 100)
    assert "nested more than 64" in problem('{"a": ' + "[" * 100_000 + "]" * 100_000 + "}")


def test_brackets_in_json_strings_are_not_nesting() -> None:
    text = json.dumps({"a": "[" * 200, "b": '\\"[[[', "c": [[["ok"]]]})
    assert parse_documents(text, source="spec") == [json.loads(text)]


def test_json_size_is_bounded() -> None:
    assert "the limit is 10" in problem('{"a": 123456789}', InputLimits(max_bytes=10))


def test_json_syntax_errors_name_line_and_column() -> None:
    assert problem('{"a": [1, 2}\n').startswith("spec:1:12: invalid YAML at line 1, column 12")


def kubectl_list(items: list[dict[str, Any]]) -> dict[str, Any]:
    return {"apiVersion": "v1", "items": items, "kind": "List", "metadata": {"resourceVersion": ""}}


ITEMS = [{"kind": "Node", "metadata": {"name": f"n{i}"}} for i in range(3)]


@pytest.mark.parametrize("render", [yaml.safe_dump, lambda d: json.dumps(d, indent=4)], ids=["yaml", "json"])
def test_list_items_are_handed_out_one_by_one_before_their_list(render: Any) -> None:
    streamed = list(parse_stream(render(kubectl_list(ITEMS)), source="dump"))
    assert [(p.document, p.item, p.value) for p in streamed[:3]] == [
        (0, i, item) for i, item in enumerate(ITEMS)
    ]
    assert streamed[-1].item is None
    assert streamed[-1].value == kubectl_list([])


def test_a_json_error_after_items_were_handed_out_names_its_line() -> None:
    text = json.dumps(kubectl_list(ITEMS), indent=4)[:-1] + "]"
    with pytest.raises(SpecError) as err:
        list(parse_stream(text, source="dump"))
    assert str(err.value).startswith("dump:")
    assert "invalid" in str(err.value)


def depth(value: Any) -> int:
    if isinstance(value, dict | list):
        children = value.values() if isinstance(value, dict) else value
        return 1 + max((depth(child) for child in children), default=0)
    return 0


@settings(max_examples=150, deadline=None)
@given(VALUES, st.integers(1, 64))
def test_json_nesting_is_measured_on_the_bytes_piece_by_piece(document: Any, chunk: int) -> None:
    text = json.dumps(document, ensure_ascii=False).encode()
    assert nesting_depth(text, chunk=chunk) == depth(document)


@settings(max_examples=150, deadline=None)
@given(st.lists(VALUES, max_size=4), VALUES, st.integers(1, 40), st.sampled_from([None, 2]))
def test_json_decoded_window_by_window_is_the_whole_decoding(
    items: list[Any], other: Any, window: int, indent: int | None
) -> None:
    document = {"apiVersion": "v1", "items": items, "kind": "List", "other": other}
    data = json.dumps(document, indent=indent).encode()
    streamed = list(read_json(data, InputLimits(), stream_items=True, window=window))
    assert [p.value for p in streamed if p.item is not None] == items
    assert streamed[-1].value == {**document, "items": []}
    (whole,) = read_json(data, InputLimits(), stream_items=False, window=window)
    assert whole.value == document
