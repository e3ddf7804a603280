"""What the scheduler knows of each gang holding capacity beyond where its pods are: its
priority, when it was admitted and how long it said it runs.

Preemption costs a victim by the GPU time it would lose (GPUs times time since admission), and
reservations plan with every running gang's expected end (admission + run time). Both facts are
written into the stored placement document at admission (``stamped``: ``admittedAt``,
``runSeconds``, and ``admittedPriority``, the rank reached by aging), so they survive a restart and are read with the bookings the loop reads anyway
(``known.HoldingIndex``). A placement stored without them (by an older toposched) counts as
admitted at time 0, the costliest to lose, with the service's default run time.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from toposched.model import Resources
from toposched.store import Json, WorkloadRecord

ADMITTED_AT = "admittedAt"
RUN_SECONDS = "runSeconds"
RANK = "admittedPriority"  # the priority it had reached by aging when admitted


@dataclass(frozen=True, slots=True)
class Held:
    """A gang holding capacity: its priority (the one it had reached by aging when admitted,
    ``aging``), admission time and declared run time (None: not recorded; the caller's default
    applies)."""

    priority: int
    admitted_at: float
    run_seconds: float | None

    def expected_end(self, default_run_seconds: float) -> float:
        """When it is expected to end: admission plus its run time (``default_run_seconds``
        when none was recorded)."""
        seconds = self.run_seconds if self.run_seconds is not None else default_run_seconds
        return self.admitted_at + seconds


def stamped(placement: dict[str, Any], held: Held) -> dict[str, Any]:
    """A placement document with the facts of its admission written in."""
    return {**placement, ADMITTED_AT: held.admitted_at, RUN_SECONDS: held.run_seconds, RANK: held.priority}


def carried(old: Json, new: dict[str, Any]) -> dict[str, Any]:
    """``new`` (a gang's placement moved to other nodes) keeping the stamps of ``old``: a moved
    gang keeps running, so it keeps its admission time."""
    if not isinstance(old, Mapping):
        return new
    kept = {key: old[key] for key in (ADMITTED_AT, RUN_SECONDS) if key in old}
    return {**new, **kept}


def held_of(record: WorkloadRecord) -> Held:
    """The facts of a stored gang holding capacity; missing or unreadable stamps read as
    admitted at time 0 with no run time."""
    placement = record.placement if isinstance(record.placement, Mapping) else {}
    admitted = _number(placement.get(ADMITTED_AT))
    return Held(
        record.priority, admitted if admitted is not None else 0.0, _number(placement.get(RUN_SECONDS))
    )


def gpus_of(usage: Mapping[str, Resources], gpu: str) -> int:
    """The GPUs (resource ``gpu``) a booking holds, over its nodes."""
    return sum(resources.get(gpu, 0) for resources in usage.values())


def _number(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    number = float(value)
    return number if math.isfinite(number) and number >= 0 else None
