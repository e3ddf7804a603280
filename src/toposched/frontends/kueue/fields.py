"""Reading YAML values defensively: every wrong type becomes a Problem with its field path."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from toposched.model import PodBudget, Problem

Problems = list[Problem]


def at(path: str, child: str) -> str:
    """``spec`` + ``template`` → ``spec.template``; an empty base path gives just the child."""
    return f"{path}.{child}" if path else child


def key_at(path: str, key: str) -> str:
    """The path of a map entry whose key contains dots: ``annotations["kueue.x-k8s.io/..."]``."""
    return f'{path}["{key}"]'


def type_name(value: object) -> str:
    if value is None:
        return "nothing"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, Mapping):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    return type(value).__name__


def mapping(value: object, path: str, problems: Problems, *, required: bool = False) -> Mapping[str, Any]:
    """``value`` when it is a mapping; otherwise an empty one and a Problem (absent is fine unless required)."""
    if value is None:
        if required:
            problems.append(Problem(path, "is missing", "add this field"))
        return {}
    if not isinstance(value, Mapping):
        problems.append(Problem(path, f"expected a mapping, got {type_name(value)}", "check the indentation"))
        return {}
    return value


def sequence(value: object, path: str, problems: Problems, *, required: bool = False) -> Sequence[Any]:
    """``value`` when it is a list; otherwise an empty list and a Problem (absent is fine unless required)."""
    if value is None:
        if required:
            problems.append(Problem(path, "is missing", "add this list"))
        return []
    if not isinstance(value, list):
        problems.append(
            Problem(path, f"expected a list, got {type_name(value)}", "write it as a YAML list (- item)")
        )
        return []
    return value


def count(
    value: object, path: str, problems: Problems, *, default: int, budget: PodBudget | None
) -> int | None:
    """A non-negative whole number such as ``parallelism``, within the pod limit of ``budget``
    (None: not a pod count); None (and a Problem) when invalid."""
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int):
        problems.append(
            Problem(path, f"must be a whole number, got {value!r}", "write a non-negative integer such as 4")
        )
        return None
    if value < 0:
        problems.append(
            Problem(path, f"must not be negative, got {value}", "write a non-negative integer such as 4")
        )
        return None
    too_many = budget.check(path, value) if budget is not None else None
    if too_many is not None:
        problems.append(too_many)
        return None
    return value


def text(
    value: object,
    path: str,
    problems: Problems,
    *,
    required: bool = False,
    hint: str = "give the object a name",
) -> str:
    """A non-empty string field such as ``metadata.name``; empty string (and a Problem) when invalid."""
    if value is None or value == "":
        if required:
            problems.append(Problem(path, "is missing", hint))
        return ""
    if not isinstance(value, str):
        problems.append(Problem(path, f"must be a string, got {type_name(value)}", "quote the value"))
        return ""
    return value


def add_new(problems: Problems, found: list[Problem]) -> None:
    """Add the problems of fields not reported yet (one problem per field)."""
    reported = {p.path for p in problems}
    problems.extend(p for p in found if p.path not in reported)


def whole(value: str) -> int | None:
    """A base-10 integer as Go's strconv.ParseInt reads it, else None."""
    digits = value[1:] if value[:1] in ("+", "-") else value
    return int(value) if digits.isascii() and digits.isdigit() else None
