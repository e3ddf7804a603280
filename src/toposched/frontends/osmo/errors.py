"""Turning pydantic validation errors into ``Problem`` entries whose paths name the objects.

A path such as ``workflow.groups[train].tasks[shard-1].resource`` names the group and the task
(by the ``name`` found in the raw input) instead of list indices, so a user can find the spot.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import ValidationError

from toposched.model import Problem

_HINTS = {
    "extra_forbidden": "remove the field or check its spelling",
    "missing": "add the field",
    "enum": "use one of the listed values",
    "literal_error": "use one of the listed values",
    "finite_number": "give a finite number, not .nan or .inf",
}


def named_path(raw: object, loc: Sequence[int | str], prefix: str = "") -> str:
    """Render a pydantic ``loc`` as a field path; list items that carry a ``name`` show it."""
    path = prefix
    node: object = raw
    for part in loc:
        if isinstance(part, int):
            label = str(part)
            if isinstance(node, Sequence) and not isinstance(node, str) and 0 <= part < len(node):
                node = node[part]
                if isinstance(node, Mapping) and isinstance(node.get("name"), str) and node["name"]:
                    label = node["name"]
            else:
                node = None
            path += f"[{label}]"
        else:
            path = f"{path}.{part}" if path else str(part)
            node = node.get(part) if isinstance(node, Mapping) else None
    return path


def problems_from(exc: ValidationError, raw: object, prefix: str = "") -> list[Problem]:
    """One ``Problem`` per pydantic error, with a named path and a short hint."""
    problems = []
    for err in exc.errors():
        loc = [p for p in err["loc"] if isinstance(p, int | str)]
        message = _message(err)
        problems.append(Problem(named_path(raw, loc, prefix), message, _HINTS.get(err["type"], "")))
    return problems


def _message(err: Mapping[str, Any]) -> str:
    kind = err["type"]
    loc = err["loc"]
    field = str(loc[-1]) if loc else "value"
    if kind == "extra_forbidden":
        return f"unknown field {field!r}"
    if kind == "missing":
        return f"field {field!r} is required"
    return f"{field}: {err['msg']}"
