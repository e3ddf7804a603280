"""Mixed, Kueue's default profile (since v0.15): one ordering for requests with a required or
preferred level (BestFit) and another for unconstrained ones (LeastFreeCapacity), so constrained
gangs pack tightly and unconstrained pods fill small holes first."""

from __future__ import annotations

from dataclasses import dataclass

from toposched.engine.core.strategy import Strategy
from toposched.model import Mode


@dataclass(frozen=True, slots=True)
class Mixed:
    """The orderings are given (``toposched.engine.profiles`` passes BestFit and LeastFreeCapacity), so this
    module knows only the rule, not its siblings."""

    constrained: Strategy
    unconstrained: Strategy

    def for_request(self, mode: Mode) -> Strategy:
        """The ordering of one Kueue request (implied and slice-only requests are unconstrained)."""
        return self.unconstrained if mode is Mode.UNCONSTRAINED else self.constrained

    def for_group(self, constrained: bool) -> Strategy:
        """The ordering of a group of the hierarchical solver; ``constrained``: the group or an
        ancestor has a required or preferred level."""
        return self.constrained if constrained else self.unconstrained
