"""Per-user quotas on pending work: how many workloads one user may have waiting, with how many
pods and how many bytes of stored spec. Checked when a workload is stored, in the same
transaction, so concurrent submissions of one user cannot pass it together."""

from __future__ import annotations

from dataclasses import dataclass, fields

from toposched.model.errors import Problem, SpecError

MAX_QUOTA = 10**15  # any larger figure is a typo, not a quota
FIELD_NAMES = {"workloads": "workloads", "pods": "pods", "spec_bytes": "specBytes"}


@dataclass(frozen=True, slots=True)
class Usage:
    """Pending work: workloads, their pods and the bytes of their stored specs."""

    workloads: int = 0
    pods: int = 0
    spec_bytes: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.workloads + other.workloads, self.pods + other.pods, self.spec_bytes + other.spec_bytes
        )


@dataclass(frozen=True, slots=True)
class Quota:
    """The most pending work one user may have at once. The defaults are the service's
    (``toposched serve --quota-workloads``, ``--quota-pods``, ``--quota-bytes``): room for two
    gangs of the largest size and a thousand small ones, and no more."""

    workloads: int = 1_000
    pods: int = 200_000
    spec_bytes: int = 64 * 2**20

    def __post_init__(self) -> None:
        problems = [
            Problem(
                f"quota.{FIELD_NAMES[f.name]}",
                f"{getattr(self, f.name)!r} is not a count from 0 to {MAX_QUOTA}",
                "give a whole number",
            )
            for f in fields(self)
            if type(getattr(self, f.name)) is not int or not 0 <= getattr(self, f.name) <= MAX_QUOTA
        ]
        if problems:
            raise SpecError(problems)

    def passed(self, usage: Usage) -> list[tuple[str, int, int]]:
        """Each figure ``usage`` passes: (its JSON field name, the usage, the limit)."""
        return [
            (FIELD_NAMES[f.name], getattr(usage, f.name), getattr(self, f.name))
            for f in fields(self)
            if getattr(usage, f.name) > getattr(self, f.name)
        ]
