"""Why a gang does not place and what would: the values ``toposched.engine.explain`` builds and
the CLI and the API print."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import StrEnum

from toposched.model.ir import Gang
from toposched.model.node import Taint
from toposched.model.placement import LayerFit, Unschedulable

Path = tuple[str, ...]


@dataclass(frozen=True, slots=True)
class DomainFit:
    """One candidate domain: pods of the failing group it holds against those needed (never
    more than needed), and what it lacks per resource for all of them. For a sliced group,
    ``layers`` counts the slices of each layer one arrangement of the whole group takes there
    (coarsest first) and ``short`` the groups of that arrangement left short of slices of the
    finest layer."""

    domain: Path
    fit: int
    needed: int
    shortfall: Mapping[str, int]
    layers: tuple[LayerFit, ...] = ()
    short: tuple[ShortSlices, ...] = ()

    def text(self, name: Callable[[str], str] = str) -> str:
        """One line: ``z1: 112 of 128 pod(s) fit; slices: block 1/2, rack 7/8; short of 1 rack
        slice(s) of 16 pod(s): z1/z1-b2 holds 3 of 4``. ``name``: a level's short name."""
        out = f"{'/'.join(self.domain)}: {self.fit} of {self.needed} pod(s) fit"
        if self.layers:
            out += "; slices: " + ", ".join(f"{name(x.level)} {x.fit}/{x.needed}" for x in self.layers)
            finest = self.layers[-1]
            missing = finest.needed - finest.fit
            if missing > 0:
                size = self.needed // finest.needed
                where = ", ".join(f"{'/'.join(s.domain)} holds {s.held} of {s.full}" for s in self.short)
                out += f"; short of {missing} {name(finest.level)} slice(s) of {size} pod(s)"
                out += f": {where}" if where else ""
        if self.shortfall:
            out += "; short of " + ", ".join(f"{r} {amount}" for r, amount in self.shortfall.items())
        return out


@dataclass(frozen=True, slots=True)
class ShortSlices:
    """A domain that holds ``held`` of the ``full`` finest-layer slices its part of the group
    needs: the missing ones must go there."""

    domain: Path
    held: int
    full: int


class ExclusionReason(StrEnum):
    NOT_READY = "notReady"
    CORDONED = "cordoned"
    MISSING_LABELS = "missingLabels"
    TAINT = "taint"
    NODE_SELECTOR = "nodeSelector"
    RESOURCE = "resource"


@dataclass(frozen=True, slots=True)
class Exclusion:
    """Nodes that cannot take a pod of the failing group, for one reason. ``taint`` is the taint
    a toleration would admit; ``resource`` the first resource a node has too little of."""

    reason: ExclusionReason
    nodes: int
    taint: Taint | None = None
    resource: str | None = None


class SuggestionKind(StrEnum):
    PREFERRED_LEVEL = "preferredLevel"
    SMALLER = "smaller"
    AFTER_WORKLOADS_END = "afterWorkloadsEnd"
    COMPLETE_SEARCH = "completeSearch"


@dataclass(frozen=True, slots=True)
class Suggestion:
    """A change that places the gang. ``gang`` is the changed gang (None: unchanged); ``ended``
    the running workloads (``namespace/owner``) that must end first."""

    kind: SuggestionKind
    text: str
    gang: Gang | None = None
    ended: tuple[str, ...] = ()
    domains: tuple[Path, ...] = ()  # where the failing group lands then, at the explained level


@dataclass(frozen=True, slots=True)
class Explanation:
    """``untried``: the kinds of suggestion not tried, or not tried to the end, because the
    explanation's budget (steps, time) ran out first."""

    refusal: Unschedulable
    group: str | None
    level: str | None
    candidates: tuple[DomainFit, ...]
    exclusions: tuple[Exclusion, ...]
    suggestions: tuple[Suggestion, ...]
    untried: tuple[SuggestionKind, ...] = ()

    def facts(self) -> list[str]:
        """The refusal's facts plus every candidate, exclusion and suggestion as text."""
        out = self.refusal.facts()
        for fit in self.candidates:
            out += [*fit.domain, str(fit.fit), str(fit.needed), *fit.shortfall]
            for layer in fit.layers:
                out += [layer.level, str(layer.fit), str(layer.needed)]
        for exclusion in self.exclusions:
            out += [
                str(exclusion.reason),
                str(exclusion.nodes),
                str(exclusion.taint or exclusion.resource or ""),
            ]
        out += [s.text for s in self.suggestions]
        return out
