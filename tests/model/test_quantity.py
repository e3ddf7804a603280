"""Kubernetes quantities parse to exact canonical integers."""

from __future__ import annotations

import pytest

from toposched.model import SpecError, format_quantity, parse_quantity


@pytest.mark.parametrize(
    ("text", "resource", "expected"),
    [
        pytest.param("1", "cpu", 1000, id="cpu-whole"),
        pytest.param("500m", "cpu", 500, id="cpu-milli"),
        pytest.param("1.5", "cpu", 1500, id="cpu-decimal"),
        pytest.param("0.0001", "cpu", 1, id="cpu-rounds-up-below-milli"),
        pytest.param("100n", "cpu", 1, id="cpu-nano-rounds-up"),
        pytest.param("16Gi", "memory", 16 * 2**30, id="binary-gi"),
        pytest.param("1Ki", "memory", 1024, id="binary-ki"),
        pytest.param("2Ei", "memory", 2 * 2**60, id="binary-ei"),
        pytest.param("1k", "memory", 1000, id="decimal-k"),
        pytest.param("3M", "memory", 3_000_000, id="decimal-m"),
        pytest.param("1G", "memory", 10**9, id="decimal-g"),
        pytest.param("2T", "memory", 2 * 10**12, id="decimal-t"),
        pytest.param("1P", "memory", 10**15, id="decimal-p"),
        pytest.param("1E", "memory", 10**18, id="decimal-e"),
        pytest.param("1e3", "memory", 1000, id="exponent"),
        pytest.param("1.5E2", "nvidia.com/gpu", 150, id="exponent-upper"),
        pytest.param("1e-3", "cpu", 1, id="negative-exponent"),
        pytest.param("4", "nvidia.com/gpu", 4, id="gpu"),
        pytest.param(8, "nvidia.com/gpu", 8, id="int"),
        pytest.param(0.5, "cpu", 500, id="float"),
        pytest.param("110", "pods", 110, id="pods"),
        pytest.param(" 2 ", "cpu", 2000, id="whitespace"),
    ],
)
def test_parse_quantity(text: str | int | float, resource: str, expected: int) -> None:
    assert parse_quantity(text, resource) == expected


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("", id="empty"),
        pytest.param("abc", id="letters"),
        pytest.param("1Gb", id="unknown-suffix"),
        pytest.param("1.2.3", id="two-dots"),
        pytest.param("-1", id="negative"),
        pytest.param("1 Gi", id="inner-space"),
        pytest.param("Gi", id="suffix-only"),
    ],
)
def test_invalid_quantity_names_the_field(text: str) -> None:
    with pytest.raises(SpecError) as info:
        parse_quantity(text, "memory", path="nodes[n1].status.allocatable.memory")
    problem = info.value.problems[0]
    assert problem.path == "nodes[n1].status.allocatable.memory"
    assert repr(text) in problem.message
    assert "16Gi" in problem.hint or "resource amounts" in problem.hint


@pytest.mark.parametrize(
    ("amount", "resource", "text"),
    [(1500, "cpu", "1500m"), (2000, "cpu", "2"), (16 * 2**30, "memory", "16Gi"), (1000, "memory", "1000")],
)
def test_format_quantity(amount: int, resource: str, text: str) -> None:
    assert format_quantity(amount, resource) == text
    assert parse_quantity(text, resource) == amount
