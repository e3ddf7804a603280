"""Exit codes and the one-line-per-problem error format of the commands."""

from __future__ import annotations

from collections.abc import Sequence
from enum import IntEnum

from toposched.model import NotFoundError, SpecError, ToposchedError
from toposched.model.errors import MAX_REPORTED_PROBLEMS, shorten


class ExitCode(IntEnum):
    """What the commands return; scripts depend on these values."""

    PLACED = 0
    FAILED = 1  # the service could not do it now: unreachable, a server error, a state conflict
    INVALID = 2  # the input is wrong: a file, a field, an option, a token, a workload id
    UNSCHEDULABLE = 3  # the input is fine but the gang does not fit


def error_lines(exc: ToposchedError) -> list[str]:
    """``path: message (hint)`` for each problem reported (``SpecError.reported``: the first few,
    each line bounded); other errors as one line."""
    if isinstance(exc, SpecError) and exc.problems:
        return [str(problem) for problem in exc.reported]
    if isinstance(exc, NotFoundError):
        text = f"{exc.kind} {exc.name!r} not found"
        return [f"{text} ({exc.hint})" if exc.hint else text]
    return [str(exc) or type(exc).__name__]


def exit_code_of(exc: ToposchedError) -> ExitCode:
    """A live cluster that cannot be read (unreachable, a list refused) is not the input's
    fault: exit 1, as kubectl's; every other error is invalid input (2)."""
    # Imported here: the protocol module is small, but no command needs it before an error.
    from toposched.controller.kubeapi import KubeApiError

    return ExitCode.FAILED if isinstance(exc, KubeApiError) else ExitCode.INVALID


def warning_lines(warnings: Sequence[str]) -> list[str]:
    """``warning: ...`` lines held to the bounds errors are (``SpecError.reported``): the first
    few, each line bounded, the last counting the rest (a large dump may warn per node)."""
    lines = [f"warning: {shorten(text)}" for text in warnings[:MAX_REPORTED_PROBLEMS]]
    if len(warnings) > MAX_REPORTED_PROBLEMS:
        lines[-1] = f"warning: and {len(warnings) - (MAX_REPORTED_PROBLEMS - 1)} more warnings"
    return lines
