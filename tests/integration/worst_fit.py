"""A placement policy of the tests' own: ``worstfit`` takes the domain with the most free
capacity for every request and group, where BestFit takes the tightest that fits. It is one
module and one registry entry (``policies``): nothing in toposched names it."""

from __future__ import annotations

from dataclasses import dataclass

from toposched.engine import PolicyRegistry
from toposched.engine.core.strategy import Spread, Strategy
from toposched.engine.profiles import builtin
from toposched.model import Mode
from toposched.snapshot import BoolArray
from toposched.topology import IntArray

NAME = "worstfit"


class WorstFit:
    """Most free slices first, and the first domain in that order is the one taken."""

    descending = True

    def level_domain(self, capacity: IntArray, fits: BoolArray, needed: int) -> int | None:
        return 0 if len(fits) and fits[0] else None

    def last_domains(self, units: IntArray, lengths: IntArray, first: IntArray, needed: IntArray) -> IntArray:
        return first  # the order as it is


@dataclass(frozen=True)
class WorstFitPolicy:
    name: str = NAME
    hierarchical: bool = False

    def for_request(self, mode: Mode) -> tuple[Strategy, Spread | None]:
        return WorstFit(), None

    def for_group(self, constrained: bool) -> Strategy | None:
        return WorstFit()


def policies() -> PolicyRegistry:
    """The built-in policies and ``worstfit``."""
    registry = builtin()
    registry.register(WorstFitPolicy())
    return registry
