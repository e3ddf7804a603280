"""Placement policies by name: what the solvers ask a policy, and the registry that names them.

A policy is one object answering three questions (``PlacementPolicy``); the registry maps names
to them. ``toposched.engine.profiles`` registers the built-in ones (Kueue's profiles and KAI's
binpack); a caller adds its own with one ``register`` call and names it wherever a policy is
named (``--policy``, ``SchedulerConfig.policy``, a spec's ``toposched.io/policy`` annotation).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol

from toposched.engine.core.strategy import Spread, Strategy
from toposched.model import Mode, Problem, SpecError


class PlacementPolicy(Protocol):
    """How domains and nodes are ordered, as the solvers ask it."""

    @property
    def name(self) -> str: ...

    @property
    def hierarchical(self) -> bool:
        """Only the hierarchical solver implements it (KAI's binpack): every gang placed under
        it goes there, Kueue's included."""
        ...

    def for_request(self, mode: Mode) -> tuple[Strategy, Spread | None]:
        """The ordering of one Kueue request in ``mode``, and the policy's own placement tried
        first (balanced placement of preferred requests), if any."""
        ...

    def for_group(self, constrained: bool) -> Strategy | None:
        """The ordering of a group of the hierarchical solver (``constrained``: the group or an
        ancestor has a required or preferred level); None: KAI's binpack."""
        ...


class PolicyRegistry:
    """Policies by name, in registration order. Each caller holds its own (``profiles.builtin``
    makes one with the built-in policies)."""

    def __init__(self, policies: Iterable[PlacementPolicy] = ()) -> None:
        self._by_name: dict[str, PlacementPolicy] = {}
        for policy in policies:
            self.register(policy)

    def register(self, policy: PlacementPolicy) -> None:
        """Add ``policy`` under its name (replacing one of the same name)."""
        self._by_name[policy.name] = policy

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(self._by_name)

    def get(self, name: str, *, field: str = "policy") -> PlacementPolicy:
        """The policy called ``name``; a ``SpecError`` on ``field`` when none is."""
        found = self._by_name.get(str(name).strip().lower())
        if found is None:
            raise SpecError(
                [Problem(field, f"unknown policy {name!r}", f"use one of {', '.join(self.names)}")]
            )
        return found

    def resolve(self, policy: str | PlacementPolicy) -> PlacementPolicy:
        """``policy`` itself, or the registered policy it names."""
        return self.get(policy) if isinstance(policy, str) else policy
