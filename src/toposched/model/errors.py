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
    └── StoreError              the store failed; stored state is unchanged                 (HTTP 503)

"Does not fit" is not an error: the engine returns an ``Unschedulable`` value.
"""

from __future__ import annotations

import errno
from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Problem:
    """One thing wrong with the input: where (field path), what, and how to fix it."""

    path: str
    message: str
    hint: str = ""

    def __str__(self) -> str:
        text = f"{self.path}: {self.message}" if self.path else self.message
        return f"{text} ({self.hint})" if self.hint else text


class ToposchedError(Exception):
    """Base of every error toposched raises on purpose."""


class SpecError(ToposchedError):
    """Invalid user input. Lists every problem found, each with its field path and a hint."""

    def __init__(self, problems: Iterable[Problem]) -> None:
        self.problems: tuple[Problem, ...] = tuple(problems)
        super().__init__("; ".join(str(p) for p in self.problems) or "invalid input")


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


class StoreError(ToposchedError):
    """The store could not complete the request; nothing was changed."""


def listen_error(flag: str, host: str, port: int, error: OSError) -> SpecError:
    """A server could not listen on ``host:port``, as a one-line error naming the option that
    sets the port (a port in use is the usual cause: two commands started with their defaults)."""
    reason = "it is in use by another process" if error.errno == errno.EADDRINUSE else error.strerror
    problem = f"cannot listen on {host}:{port}: {reason or error}"
    return SpecError([Problem(flag, problem, f"choose a free port with {flag}")])
