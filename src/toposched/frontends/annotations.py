"""What a workload's own annotations ask of toposched, whichever front end reads it: the policy
(``toposched.io/policy``) and the declared run time (``toposched.io/run-seconds``). Read from any
of the input's documents; two documents naming different values are a spec error."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, TypeVar

from toposched.model import (
    MAX_RUN_SECONDS,
    POLICY_ANNOTATION,
    RUN_SECONDS_ANNOTATION,
    Problem,
    WorkloadSpecError,
)

T = TypeVar("T")
_POLICY_NAME = re.compile(r"[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?")
_RUN_SECONDS_HINT = (
    f'write the expected run time in seconds, above 0 and at most {MAX_RUN_SECONDS:.0f}, e.g. "3600"'
)


def named_policy(documents: Sequence[Any]) -> str | None:
    """The policy the documents name, lower case; None when none does. ``WorkloadSpecError`` for
    a value that is no policy name or for two names."""
    hint = "name a policy: mixed, bestfit, leastfree, balanced, binpack"
    return _one_value(documents, POLICY_ANNOTATION, _policy_name, hint, "names policies", "name one policy")


def declared_run_seconds(documents: Sequence[Any]) -> float | None:
    """The run time the documents declare, in seconds; None when none does.
    ``WorkloadSpecError`` for a value that is not a number of seconds above 0 and at most a
    year, or for two different values."""
    return _one_value(
        documents, RUN_SECONDS_ANNOTATION, _seconds, _RUN_SECONDS_HINT, "declares run times", "declare one"
    )


def _one_value(
    documents: Sequence[Any],
    key: str,
    read: Callable[[object], T | None],
    hint: str,
    several: str,
    fix: str,
) -> T | None:
    """The one value annotation ``key`` has across ``documents`` (``read`` turns it into a value,
    None when it is not one, reported with ``hint``); two different values are a problem too."""
    found: dict[T, str] = {}
    problems: list[Problem] = []
    for path, raw in _annotations(documents, key):
        value = read(raw)
        if value is None:
            problems.append(Problem(path, f"is {raw!r}", hint))
        else:
            found.setdefault(value, path)
    if len(found) > 1:
        shown = ", ".join(sorted(f"{v:g}" if isinstance(v, float) else str(v) for v in found))
        problems.append(Problem(next(iter(found.values())), f"{several} {shown}", fix))
    if problems:
        raise WorkloadSpecError(problems)
    return next(iter(found), None)


def _annotations(documents: Sequence[Any], key: str) -> Iterator[tuple[str, object]]:
    """(path, value) of annotation ``key`` on each document that has it."""
    for position, document in enumerate(documents):
        metadata = document.get("metadata") if isinstance(document, Mapping) else None
        annotations = metadata.get("annotations") if isinstance(metadata, Mapping) else None
        if isinstance(annotations, Mapping) and key in annotations:
            yield f"documents[{position}].metadata.annotations[{key}]", annotations[key]


def _policy_name(value: object) -> str | None:
    name = value.strip().lower() if isinstance(value, str) else ""
    return name if _POLICY_NAME.fullmatch(name) else None


def _seconds(value: object) -> float | None:
    """A run time annotation as seconds, or None when it is not one (annotations are strings;
    a bare number is accepted too)."""
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        return None
    text = str(value).strip()
    if len(text) > 32:  # bounded before it is parsed
        return None
    try:
        seconds = float(text)
    except ValueError:
        return None
    return seconds if 0 < seconds <= MAX_RUN_SECONDS else None
