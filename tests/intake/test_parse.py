"""The edge parser bounds every input before anything walks it (issue: a 342-byte alias bomb
stalled ``place`` for minutes; a 600-deep flow list raised RecursionError in the KAI key scan)."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from toposched.frontends.registry import CompileContext, default_registry
from toposched.intake.parse import DEFAULT_LIMITS, InputLimits, parse_documents, parse_json
from toposched.model import SpecError


def alias_bomb(width: int = 9, depth: int = 9) -> str:
    """ "Billion laughs": each level lists the previous one ``width`` times."""
    names = [chr(ord("a") + i) for i in range(depth + 1)]
    lines = [f"{names[0]}: &{names[0]} [{','.join(['x'] * width)}]"]
    lines += [f"{n}: &{n} [{','.join([f'*{p}'] * width)}]" for p, n in itertools.pairwise(names)]
    return "\n".join(lines) + "\n"


def problem(text: str | bytes, limits: InputLimits = DEFAULT_LIMITS) -> str:
    with pytest.raises(SpecError) as err:
        parse_documents(text, source="spec", limits=limits)
    (only,) = err.value.problems
    return str(only)


def test_an_alias_bomb_is_refused_before_it_is_expanded() -> None:
    text = alias_bomb()
    assert len(text.encode()) < 400
    assert "aliases expand to more than 10000 extra nodes" in problem(text)


def test_a_few_aliases_are_fine() -> None:
    (doc,) = parse_documents("base: &b {cpu: 1}\nx: *b\ny: *b\n", source="spec")
    assert doc["x"] == doc["y"] == {"cpu": 1}


@pytest.mark.parametrize(
    "text",
    [
        "[" * 600 + "]" * 600,
        "[" * 100_000 + "]" * 100_000,
        "\n".join(" " * i + "-" for i in range(3_000)),
        'a: "' + "]" * 30_000 + '"\nb: ' + "[" * 30_000 + "]" * 30_000 + "\n",
    ],
    ids=["600-deep-flow", "100k-deep-flow", "3k-deep-block", "brackets-in-a-string-hide-nothing"],
)
def test_deep_nesting_is_refused(text: str) -> None:
    assert "nested" in problem(text)


def test_a_deep_kai_looking_spec_reaches_no_front_end() -> None:
    """The KAI recogniser walks documents recursively: a bounded parse keeps it safe."""
    text = "kind: Job\nmetadata: " + "[" * 600 + "]" * 600 + "\n"
    with pytest.raises(SpecError, match="nested more than 64 levels"):
        default_registry().compile(parse_documents(text, source="spec"), CompileContext())


def test_duplicate_keys_are_refused_with_both_lines() -> None:
    assert problem("a: 1\nb: 2\na: 3\n") == (
        "spec:3:1: duplicate key 'a' (first at line 1) (keep one of them: YAML would silently use the last)"
    )


def test_size_is_bounded() -> None:
    assert "the limit is 10" in problem("a: 12345678901\n", InputLimits(max_bytes=10))


def test_documents_are_plain_json_data() -> None:
    (doc,) = parse_documents("t: 2024-01-01T00:00:00Z\nd: 2024-01-01\nb: !!binary aGVsbG8=\n", source="spec")
    assert doc == {"t": "2024-01-01T00:00:00Z", "d": "2024-01-01", "b": "aGVsbG8="}


def test_syntax_errors_name_line_and_column() -> None:
    assert problem("a: [\n").startswith("spec:2:1: invalid YAML at line 2, column 1")


def test_binary_input_is_refused() -> None:
    assert "is not UTF-8 text" in problem(b"\xff\xfe\x00garbage")


def test_place_refuses_an_alias_bomb_with_exit_2(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from toposched.cli.main import app

    bomb = tmp_path / "bomb.yaml"
    bomb.write_text(alias_bomb(), encoding="utf-8")
    sample = Path(__file__).resolve().parents[2] / "src/toposched/samples/cluster.yaml"
    run = CliRunner().invoke(app, ["place", str(bomb), "--cluster", str(sample)])
    assert run.exit_code == 2
    assert "aliases expand" in run.output


def test_place_reads_non_utf8_standard_input_as_an_input_error() -> None:
    from typer.testing import CliRunner

    from toposched.cli.main import app

    sample = Path(__file__).resolve().parents[2] / "src/toposched/samples/cluster.yaml"
    run = CliRunner().invoke(app, ["place", "-", "--cluster", str(sample)], input=b"kind: Job\xff\xfe\n")
    assert run.exit_code == 2
    assert "is not UTF-8 text" in run.output


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[" * 100_000, "nested more than 64 levels deep"),
        ('{"a": 1, "a": 2}', "has the key 'a' twice"),
        ('[{"size": 2},]', "Expecting value at line 1 column"),
        ("size: 2", "Expecting value"),  # YAML is not JSON here
        ("[1] [2]", "Extra data"),
    ],
    ids=["too-deep", "duplicate-key", "trailing-comma", "yaml", "two-values"],
)
def test_json_inside_a_document_is_read_strictly_and_bounded(text: str, message: str) -> None:
    with pytest.raises(SpecError) as err:
        parse_json(text, source="annotation")
    (only,) = err.value.problems
    assert only.path == "annotation" and message in only.message


def test_json_inside_a_document_is_one_plain_value() -> None:
    assert parse_json(' [{"size": 2, "topology": "rack"}] ', source="annotation") == [
        {"size": 2, "topology": "rack"}
    ]
    with pytest.raises(SpecError, match="bytes; the limit is 16 bytes"):
        parse_json("[" + "1," * 20 + "1]", source="annotation", limits=InputLimits(max_bytes=16))
