"""What is shown of a ``SpecError`` stays short whatever the input: at most 20 problems (the
last counting the rest), each field at most 500 characters; reporting a report changes nothing."""

from __future__ import annotations

from toposched.model import Problem, SpecError, reported_problems
from toposched.model.errors import MAX_FIELD_CHARS, MAX_REPORTED_PROBLEMS, shorten


def _many(count: int) -> list[Problem]:
    return [
        Problem(f"items[{i}].apiVersion", "a Pod has apiVersion v1", "write apiVersion: v1")
        for i in range(count)
    ]


def test_a_few_problems_are_reported_as_they_are() -> None:
    problems = _many(MAX_REPORTED_PROBLEMS)
    assert reported_problems(problems) == tuple(problems)


def test_past_the_cap_the_last_problem_counts_the_rest() -> None:
    shown = reported_problems(_many(5000))
    assert len(shown) == MAX_REPORTED_PROBLEMS
    assert shown[:-1] == tuple(_many(MAX_REPORTED_PROBLEMS - 1))
    assert shown[-1].message == f"and {5000 - MAX_REPORTED_PROBLEMS + 1} more problems"
    assert reported_problems(shown) == shown


def test_long_fields_are_shortened_saying_by_how_much() -> None:
    text = "x" * 1_000_000
    short = shorten(text)
    assert len(short) <= MAX_FIELD_CHARS
    kept = short.index("…")
    assert short.endswith(f"[{len(text) - kept} more characters]")
    assert shorten(short) == short
    [shown] = reported_problems([Problem(text, text, text)])
    assert len(str(shown)) < 4 * MAX_FIELD_CHARS


def test_the_exception_message_is_the_report() -> None:
    error = SpecError([*_many(100_000), Problem("spec", "y" * 4_000_000)])
    assert len(error.problems) == 100_001  # every problem is kept for callers that look at them
    assert len(str(error)) < MAX_REPORTED_PROBLEMS * MAX_FIELD_CHARS
    assert str(error).endswith("and 99982 more problems (fix the ones above and run again to see the rest)")
