"""Why a gang does not place and what would: the values ``toposched.engine.explain`` builds and
the CLI and the API print."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum

from toposched.model.ir import Gang
from toposched.model.node import Taint
from toposched.model.placement import Unschedulable

Path = tuple[str, ...]


@dataclass(frozen=True, slots=True)
class DomainFit:
    """One candidate domain: pods of the failing group it holds against those needed, and what
    it lacks per resource for all of them."""

    domain: Path
    fit: int
    needed: int
    shortfall: Mapping[str, int]


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
        for exclusion in self.exclusions:
            out += [
                str(exclusion.reason),
                str(exclusion.nodes),
                str(exclusion.taint or exclusion.resource or ""),
            ]
        out += [s.text for s in self.suggestions]
        return out
