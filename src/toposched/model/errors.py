"""The one error tree of toposched.

::

    ToposchedError
    ├── SpecError               user input is invalid; carries every Problem found (CLI exit 2, HTTP 422)
    │   ├── ClusterSpecError    nodes, pods or Topology objects of a cluster dump
    │   ├── TopologySpecError   a topology definition (levels, label keys)
    │   └── WorkloadSpecError   a job / workload spec and its annotations
    ├── NotFoundError           a named object does not exist (unknown topology, workload)  (HTTP 404)
    ├── ConflictError           the request breaks a lifecycle guard                        (HTTP 409)
    ├── PermissionDeniedError   the caller's role does not allow the request                (HTTP 403)
    ├── LimitError              a limit of the service stops the request for now            (HTTP 429)
    │   ├── BusyError           too many requests of one kind at once (with Retry-After)
    │   └── QuotaExceededError  a user's pending work would pass their quota
    └── StoreError              the store failed; stored state is unchanged                 (HTTP 503)

"Does not fit" is not an error: the engine returns an ``Unschedulable`` value.

A ``SpecError`` keeps every problem found, but what is shown of it (its message, the CLI's
lines, the API's answer) is ``reported_problems``: at most ``MAX_REPORTED_PROBLEMS`` of them,
each field at most ``MAX_FIELD_CHARS`` long, so an error stays short whatever the input.
"""

from __future__ import annotations

import errno
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

MAX_REPORTED_PROBLEMS = 20  # the last one shown counts the rest
MAX_FIELD_CHARS = 500  # of a problem's path, message or hint as shown


@dataclass(frozen=True, slots=True)
class Problem:
    """One thing wrong with the input: where (field path), what, and how to fix it."""

    path: str
    message: str
    hint: str = ""

    def __str__(self) -> str:
        text = f"{self.path}: {self.message}" if self.path else self.message
        return f"{text} ({self.hint})" if self.hint else text


def shorten(text: str, limit: int = MAX_FIELD_CHARS) -> str:
    """``text`` cut to at most ``limit`` characters, saying how many were left out."""
    if len(text) <= limit:
        return text
    keep = max(0, limit - len(f"… [{len(text)} more characters]"))
    return f"{text[:keep]}… [{len(text) - keep} more characters]"


def reported_problems(problems: Sequence[Problem], limit: int = MAX_REPORTED_PROBLEMS) -> tuple[Problem, ...]:
    """What is shown of ``problems``: each field shortened; past ``limit``, the first
    ``limit - 1`` and one more that counts the rest. Reporting a report changes nothing."""
    shown = [Problem(shorten(p.path), shorten(p.message), shorten(p.hint)) for p in problems[:limit]]
    if len(problems) > limit:
        hidden = len(problems) - (limit - 1)
        shown[-1] = Problem(
            "", f"and {hidden} more problems", "fix the ones above and run again to see the rest"
        )
    return tuple(shown)


class ToposchedError(Exception):
    """Base of every error toposched raises on purpose."""


class SpecError(ToposchedError):
    """Invalid user input. Lists every problem found, each with its field path and a hint."""

    def __init__(self, problems: Iterable[Problem]) -> None:
        self.problems: tuple[Problem, ...] = tuple(problems)
        super().__init__("; ".join(str(p) for p in self.reported) or "invalid input")

    @property
    def reported(self) -> tuple[Problem, ...]:
        """The problems as shown to the user (``reported_problems``)."""
        return reported_problems(self.problems)


class ClusterSpecError(SpecError):
    """A cluster dump (nodes, pods, Topology objects) is invalid."""


class TopologySpecError(SpecError):
    """A topology definition is invalid."""


class WorkloadSpecError(SpecError):
    """A workload spec or its annotations are invalid."""


class NotFoundError(ToposchedError):
    """A named object does not exist."""

    def __init__(self, kind: str, name: str, hint: str = "") -> None:
        self.kind = kind
        self.name = name
        self.hint = hint
        text = f"{kind} {name!r} not found"
        super().__init__(f"{text} ({hint})" if hint else text)


class ConflictError(ToposchedError):
    """The request would break a lifecycle guard (for example deleting a referenced topology)."""


class PermissionDeniedError(ToposchedError):
    """The caller's role does not allow this request."""


class LimitError(ToposchedError):
    """A limit of the service stops the request for now: ``limit`` names it, ``retry_after``
    says in how many seconds to try again (None: when the user's own work has moved on)."""

    code = "limit_reached"

    def __init__(self, message: str, *, limit: str, retry_after: float | None = None) -> None:
        self.limit = limit
        self.retry_after = retry_after
        super().__init__(message)


class BusyError(LimitError):
    """Too many requests of one kind are running at once (for the caller, or in all)."""

    code = "busy"


class QuotaExceededError(LimitError):
    """Storing the workload would take its owner's pending work past their quota."""

    code = "quota_exceeded"


class StoreError(ToposchedError):
    """The store could not complete the request; nothing was changed."""


def listen_error(flag: str, host: str, port: int, error: OSError) -> SpecError:
    """A server could not listen on ``host:port``, as a one-line error naming the option that
    sets the port (a port in use is the usual cause: two commands started with their defaults)."""
    reason = "it is in use by another process" if error.errno == errno.EADDRINUSE else error.strerror
    problem = f"cannot listen on {host}:{port}: {reason or error}"
    return SpecError([Problem(flag, problem, f"choose a free port with {flag}")])
