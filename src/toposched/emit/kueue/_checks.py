"""Validation helpers shared by the Kueue TopologyAssignment decoders.

Every check appends ``Problem`` entries instead of raising, so one call reports everything.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from toposched.model import Problem, WorkloadSpecError, is_label_key
from toposched.model.topology import MAX_LEVELS

INT32_MAX = 2**31 - 1
MAX_PROBLEMS = 50  # a broken 100 000-domain object would otherwise list 100 000 lines


def unwrap(obj: object) -> object:
    """Accept both the assignment itself and ``{"topologyAssignment": {...}}``."""
    if isinstance(obj, Mapping) and "topologyAssignment" in obj and "levels" not in obj:
        return obj["topologyAssignment"]
    return obj


def check_levels(raw: object, path: str, problems: list[Problem]) -> tuple[str, ...] | None:
    """``levels``: 1..16 distinct node-label keys (Kueue v0.19's maxItems). None when unusable."""
    if not isinstance(raw, list):
        problems.append(
            Problem(path, "levels is missing or not a list", "list the node label keys, coarsest first")
        )
        return None
    ok = True
    if not 1 <= len(raw) <= MAX_LEVELS:
        problems.append(
            Problem(
                path,
                f"an assignment has 1 to {MAX_LEVELS} levels, got {len(raw)}",
                f"list 1 to {MAX_LEVELS} levels",
            )
        )
        ok = False
    seen: set[str] = set()
    for i, level in enumerate(raw):
        if not isinstance(level, str) or not is_label_key(level):
            problems.append(
                Problem(
                    f"{path}[{i}]",
                    f"{level!r} is not a valid node label key",
                    "use e.g. kubernetes.io/hostname",
                )
            )
            ok = False
        elif level in seen:
            problems.append(
                Problem(f"{path}[{i}]", f"level {level!r} is listed twice", "list every level once")
            )
            ok = False
        else:
            seen.add(level)
    return tuple(raw) if ok else None


def label_value(raw: object) -> str | None:
    """A label value as text. YAML turns unquoted ``1`` into an int, so ints are accepted too
    (quote values with leading zeros, which YAML would drop)."""
    if isinstance(raw, str):
        return raw
    if isinstance(raw, int) and not isinstance(raw, bool):
        return str(raw)
    return None


def positive_int(raw: object) -> int | None:
    """A pod or domain count: an int from 1 to 2^31-1 (Kueue stores int32)."""
    if isinstance(raw, int) and not isinstance(raw, bool) and 1 <= raw <= INT32_MAX:
        return raw
    return None


def as_list(raw: object) -> Sequence[Any] | None:
    return raw if isinstance(raw, list) else None


def fail(problems: list[Problem]) -> WorkloadSpecError:
    """The error to raise, with the list capped so huge inputs stay readable."""
    if len(problems) > MAX_PROBLEMS:
        extra = len(problems) - MAX_PROBLEMS
        problems = [
            *problems[:MAX_PROBLEMS],
            Problem("", f"... and {extra} more problems", "fix the ones above first"),
        ]
    return WorkloadSpecError(problems)
