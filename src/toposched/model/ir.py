"""The intermediate representation every front end compiles to and the engine places.

A ``Gang`` is all-or-nothing: a root ``Group`` whose tree mirrors the workload. Leaves hold pods
in index order, so consecutive ranks land together. Kueue PodSets, KAI subgroups and segments,
OSMO subgroups and Grove scaling groups are all ``Group`` nodes:

* a leaf with a level constraint is a Kueue PodSet (``required`` / ``preferred`` / neither =
  unconstrained) and may cut its pods into ``slices`` (Kueue slice layers, coarsest first);
* an inner group with a constraint and leaf children co-locates them (a Kueue PodSet group:
  leader and workers in one domain);
* deeper trees carry per-subgroup constraints (KAI, OSMO, Grove).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from types import MappingProxyType

from toposched.model.node import Toleration
from toposched.model.resources import EMPTY, Resources


class Policy(StrEnum):
    """How domains and nodes are ordered. ``MIXED`` is Kueue's default profile (since v0.15)."""

    MIXED = "mixed"  # BestFit for required/preferred, LeastFreeCapacity for unconstrained
    BESTFIT = "bestfit"  # BestFit for every request
    LEASTFREE = "leastfree"  # LeastFreeCapacity for every request
    BALANCED = "balanced"  # Mixed, with BalancedPlacement for preferred requests
    BINPACK = "binpack"  # KAI: fullest domain that fits first


class Search(StrEnum):
    """How hard the engine looks. ``FAITHFUL`` reproduces the upstream scheduler's choice;
    ``COMPLETE`` returns that choice when there is one, else runs a bounded exact search."""

    FAITHFUL = "faithful"
    COMPLETE = "complete"


class Mode(StrEnum):
    REQUIRED = "required"
    PREFERRED = "preferred"
    UNCONSTRAINED = "unconstrained"


@dataclass(frozen=True, slots=True)
class SliceLayer:
    """Every ``size`` consecutive pods of the group share one domain of ``level``."""

    level: str
    size: int


@dataclass(frozen=True, slots=True)
class PodSpec:
    """One pod to place. ``requests`` exclude the ``pods`` slot, which the engine adds."""

    name: str
    index: int
    requests: Resources = EMPTY
    tolerations: tuple[Toleration, ...] = ()
    node_selector: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    node: str | None = None  # already running on this node (it counts toward the group's minimum)

    @property
    def shape(self) -> tuple[Resources, tuple[Toleration, ...], tuple[tuple[str, str], ...]]:
        """Pods with the same shape fit the same nodes the same number of times."""
        return self.requests, self.tolerations, tuple(sorted(self.node_selector.items()))


@dataclass(frozen=True, slots=True)
class Group:
    """A node of the gang's group tree: a constraint, then child groups or pods (leaves only)."""

    name: str
    required: str | None = None
    preferred: str | None = None
    slices: tuple[SliceLayer, ...] = ()
    min_member: int | None = None
    min_sub_group: int | None = None  # direct children that must be satisfied; None = all
    children: tuple[Group, ...] = ()
    pods: tuple[PodSpec, ...] = ()
    topology: str | None = None  # a group may name its own topology (KAI subgroups)

    @property
    def mode(self) -> Mode:
        if self.required is not None:
            return Mode.REQUIRED
        if self.preferred is not None:
            return Mode.PREFERRED
        return Mode.UNCONSTRAINED

    @property
    def level(self) -> str | None:
        return self.required if self.required is not None else self.preferred

    @property
    def is_leaf(self) -> bool:
        return not self.children

    def leaves(self) -> Iterator[Group]:
        if self.is_leaf:
            yield self
        for child in self.children:
            yield from child.leaves()

    def all_pods(self) -> Iterator[PodSpec]:
        for leaf in self.leaves():
            yield from leaf.pods

    @property
    def size(self) -> int:
        return sum(len(leaf.pods) for leaf in self.leaves())


@dataclass(frozen=True, slots=True)
class Gang:
    """A workload placed all-or-nothing. ``topology`` None = the cluster's default topology."""

    name: str
    root: Group
    namespace: str = "default"
    topology: str | None = None
    priority: int = 0
    min_member: int | None = None
    kind: str = ""
    policy: Policy | None = None  # the front end's default; callers may override

    @property
    def size(self) -> int:
        return self.root.size

    def leaves(self) -> Iterator[Group]:
        return self.root.leaves()
