"""How far the exact search of ``Search.COMPLETE`` may go, and the counter that enforces it.

A search is bounded in steps (choices tried) and in time, read from a clock the caller injects:
the engine reads no clock of its own. A caller whose clock does not move while it searches (the
simulator's virtual one) gives a ``WorkClock`` instead, whose seconds are the steps searched so
far at a fixed cost each, so the time bound holds there too and stays deterministic.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from toposched.engine.core.options import DEFAULT_STEPS

EXPIRY_EVERY = 256  # steps between two calls of the expiry check
# What a ``WorkClock`` counts per step. ``bench/exact.py`` measures a step at about 550 µs of CPU
# (5,000 nodes); counting that much makes the step-clocked cycle's exact-search round (0.05 s)
# about 90 steps, so nearly every refused gang's search pauses instead of ending, and a paused
# gang is tried again every cycle: an unchanged cycle of 1,000 Jobs on 10k nodes then costs
# 0.45 s instead of 1 ms (bench/cycle.py --infeasible). 40 µs keeps the rounds long enough for
# searches to end and be kept; the step clock so under-counts CPU time (see README).
STEP_SECONDS = 40e-6


class WorkMeter:
    """Steps searched so far, by every search that reports to it."""

    __slots__ = ("steps",)

    def __init__(self) -> None:
        self.steps = 0


class WorkClock:
    """Seconds of search work: the steps a meter counted, ``per_step`` seconds each. A clock that
    moves with the work done, for callers whose own clock stands still while they search."""

    def __init__(self, meter: WorkMeter, per_step: float = STEP_SECONDS) -> None:
        self.meter = meter
        self.per_step = per_step

    def __call__(self) -> float:
        return self.meter.steps * self.per_step


@dataclass(frozen=True, slots=True)
class SearchBudget:
    """``steps`` choices tried, and ``expired`` (injected, e.g. a deadline on the session's
    clock) asked every few hundred steps. The steps are also counted on ``meter`` (the one a
    ``WorkClock`` reads), in runs of ``EXPIRY_EVERY``."""

    steps: int = DEFAULT_STEPS
    expired: Callable[[], bool] | None = None
    meter: WorkMeter | None = None


class Steps:
    """Counts the steps of one search against its budget. The search asks ``tick`` at every
    step and, when it answers True (every ``EXPIRY_EVERY`` steps, and once past the budget),
    pauses so that its driver can ask ``spent``."""

    def __init__(self, budget: SearchBudget) -> None:
        self.budget = budget
        self.count = 0
        self._metered = 0  # steps counted on the budget's meter so far

    def tick(self) -> bool:
        """One more step; True when the search should pause for ``spent`` (and a pause)."""
        self.count += 1
        return self.count % EXPIRY_EVERY == 1 or self.count > self.budget.steps

    def spent(self) -> bool:
        """Whether the budget is spent: past its steps, or its ``expired`` says so. The steps so
        far are counted on the meter first (a ``WorkClock`` reads it)."""
        self.settle()
        if self.count > self.budget.steps:
            return True
        expired = self.budget.expired
        return expired is not None and expired()

    def settle(self) -> None:
        """Count the steps not counted yet on the budget's meter."""
        meter = self.budget.meter
        if meter is not None:
            meter.steps += self.count - self._metered
        self._metered = self.count
