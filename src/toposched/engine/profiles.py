"""The built-in placement policies (Kueue's TAS profiles and KAI's binpack): the one place that
composes the policy modules (``toposched.engine.policies``), which know nothing of each other,
into named ``PlacementPolicy`` entries of a ``PolicyRegistry``."""

from __future__ import annotations

from dataclasses import dataclass

from toposched.engine.core.policy_registry import PlacementPolicy, PolicyRegistry
from toposched.engine.core.strategy import Spread, Strategy
from toposched.engine.policies.balanced import balanced_place
from toposched.engine.policies.bestfit import BEST_FIT
from toposched.engine.policies.leastfree import LEAST_FREE
from toposched.engine.policies.mixed import Mixed
from toposched.engine.policies.spread import SPREAD
from toposched.model import Mode, Policy


@dataclass(frozen=True, slots=True)
class Profile:
    """A policy made of Kueue orderings: ``requests`` orders Kueue requests (constrained ones by
    ``requests.constrained``, unconstrained ones, slice-only included, by the other);
    ``groups`` orders the hierarchical solver's groups (None: KAI's binpack)."""

    name: str
    requests: Mixed
    groups: Mixed | None
    spread: Spread | None = None  # placement for preferred requests, the ordering when it does not apply
    hierarchical: bool = False

    def for_request(self, mode: Mode) -> tuple[Strategy, Spread | None]:
        return self.requests.for_request(mode), self.spread if mode is Mode.PREFERRED else None

    def for_group(self, constrained: bool) -> Strategy | None:
        return None if self.groups is None else self.groups.for_group(constrained)


MIXED = Mixed(constrained=BEST_FIT, unconstrained=LEAST_FREE)
_ALL_BEST_FIT = Mixed(constrained=BEST_FIT, unconstrained=BEST_FIT)
_ALL_LEAST_FREE = Mixed(constrained=LEAST_FREE, unconstrained=LEAST_FREE)

BUILTIN: tuple[PlacementPolicy, ...] = (
    # Kueue's default profile: BestFit for required/preferred, LeastFreeCapacity for the rest.
    Profile(Policy.MIXED, MIXED, MIXED),
    Profile(Policy.BESTFIT, _ALL_BEST_FIT, _ALL_BEST_FIT),
    Profile(Policy.LEASTFREE, _ALL_LEAST_FREE, _ALL_LEAST_FREE),
    # MIXED plus balanced placement for preferred requests. Groups of the hierarchical solver take
    # BestFit: balanced placement spreads one request over the domains of a level, which a tree of
    # groups with their own constraints and minimums does not map onto.
    Profile(Policy.BALANCED, MIXED, _ALL_BEST_FIT, spread=balanced_place),
    # KAI's ordering, which only the hierarchical solver implements (``kai/binpack.py``);
    # only Kueue's node replacement asks it for a request, and BestFit is its closest ordering.
    Profile(Policy.BINPACK, _ALL_BEST_FIT, None, hierarchical=True),
    Profile("spread", Mixed(SPREAD, SPREAD), Mixed(SPREAD, SPREAD)),  # worst fit: a baseline
)


def builtin() -> PolicyRegistry:
    """A registry of the built-in policies, the caller's own to add to."""
    return PolicyRegistry(BUILTIN)


def as_policy(policy: str | PlacementPolicy) -> PlacementPolicy:
    """``policy`` itself, or the built-in policy it names (a ``SpecError`` for another name)."""
    return builtin().resolve(policy) if isinstance(policy, str) else policy
