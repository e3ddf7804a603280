"""How far the exact search of ``Search.COMPLETE`` may go, and the counter that enforces it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

DEFAULT_STEPS = 50_000
_EXPIRY_EVERY = 256  # steps between two calls of the expiry check


@dataclass(frozen=True, slots=True)
class SearchBudget:
    """``steps`` choices tried, and ``expired`` (injected, e.g. a deadline on a monotonic or
    scheduler clock) asked every few hundred steps. The engine reads no clock."""

    steps: int = DEFAULT_STEPS
    expired: Callable[[], bool] | None = None


class ExhaustedError(Exception):
    """The budget ran out: unwinds the search, which reports it as a value."""


class Steps:
    """Counts the steps of one search against its budget."""

    def __init__(self, budget: SearchBudget) -> None:
        self.budget = budget
        self.count = 0

    def tick(self) -> None:
        """One more step; raises ``ExhaustedError`` when the budget is spent."""
        self.count += 1
        if self.count > self.budget.steps:
            raise ExhaustedError
        expired = self.budget.expired
        if expired is not None and self.count % _EXPIRY_EVERY == 1 and expired():
            raise ExhaustedError
