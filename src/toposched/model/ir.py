"""The intermediate representation every front end compiles to and the engine places.

A ``Gang`` is all-or-nothing: a root ``Group`` whose tree mirrors the workload. Leaves hold pods
in index order, so consecutive ranks land together. Kueue PodSets, KAI subgroups and segments,
OSMO subgroups and Grove scaling groups are all ``Group`` nodes:

* a leaf with a level constraint is a Kueue PodSet (``required`` / ``preferred`` / neither =
  unconstrained) and may cut its pods into ``slices`` (Kueue slice layers, coarsest first);
* an inner group with a constraint and leaf children co-locates them (a Kueue PodSet group:
  leader and workers in one domain);
* deeper trees carry per-subgroup constraints (KAI, OSMO, Grove).

The front end says what it knows: each group's ``role`` (a PodSet group's leader and workers),
the ``Semantics`` the gang follows (separate from the domain-ordering ``Policy``), and facts the
engine would otherwise recompute on every placement are computed once, when the IR is built
(``Group.same_shape``, ``Group.in_index_order``, ``Group.running``, ``Gang.needs_hierarchy``).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from types import MappingProxyType
from typing import Any

from toposched.model.node import Toleration
from toposched.model.resources import EMPTY, Resources

POLICY_ANNOTATION = "toposched.io/policy"  # a workload naming its own policy (``Gang.policy``)
POLICY_FIELD = f"metadata.annotations[{POLICY_ANNOTATION}]"  # where a problem with it is reported
# How long a workload says it runs, in seconds (``Gang.run_seconds``): reservations and backfill
# plan with it (``toposched.scheduler.reservations``).
RUN_SECONDS_ANNOTATION = "toposched.io/run-seconds"
MAX_RUN_SECONDS = 366 * 86400.0  # a declared run time beyond a year is a mistake


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


class Semantics(StrEnum):
    """Which scheduler's rules a gang follows; the ``Policy`` only orders domains within them."""

    KUEUE = "kueue"  # Kueue TAS: PodSets and PodSet groups in order, each placed whole
    HIERARCHY = "hierarchy"  # KAI's group tree with minimums (KAI, OSMO and Grove schedule this way)
    # kube-scheduler's PodGroups: each child of the root is placed on its own, one candidate per
    # value of its constraint's label, at least ``min_member`` pods; a CompositePodGroup is a child
    # with children of its own, placed greedily in order.
    KUBE = "kube"


class Role(StrEnum):
    """What a group is to its parent: a PodSet group's single leader pod and its workers."""

    LEADER = "leader"
    WORKERS = "workers"
    NONE = "none"


class Mode(StrEnum):
    REQUIRED = "required"
    PREFERRED = "preferred"
    UNCONSTRAINED = "unconstrained"


class QueueKind(StrEnum):
    """Which scheduler's queue a name is: they are not interchangeable."""

    KUEUE = "kueue"  # a LocalQueue, in the workload's namespace
    KAI = "kai"  # a cluster-wide KAI Queue (OSMO pools and Grove use them too)


@dataclass(frozen=True, slots=True)
class Queue:
    """The queue a workload is submitted to, as its input names it."""

    name: str
    kind: QueueKind


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
    # The pod's ``spec`` as the input wrote it (its containers, images, restart policy...), shared
    # by the pods of one template and never changed; an emitter writes the pod for another
    # scheduler from it. None when the input has no pod spec (a conformance case, a test).
    template: Mapping[str, Any] | None = field(default=None, compare=False, repr=False)

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
    role: Role = Role.NONE
    # Every pod has the first pod's shape (so one capacity vector serves the whole leaf).
    same_shape: bool = field(init=False, repr=False, compare=False)
    # The pods' indices are distinct and ascending (so ``pods`` is already rank order).
    in_index_order: bool = field(init=False, repr=False, compare=False)
    # Some pod already runs (``PodSpec.node``).
    running: bool = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "same_shape", _all_same_shape(self.pods))
        object.__setattr__(self, "in_index_order", _in_index_order(self.pods))
        object.__setattr__(self, "running", [p.node for p in self.pods].count(None) != len(self.pods))

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

    def walk(self) -> Iterator[Group]:
        """This group and every group below it, parents first."""
        yield self
        for child in self.children:
            yield from child.walk()

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
    # The policy the workload itself names (a ``toposched.io/policy`` annotation), which wins over
    # the caller's choice; the front end's default ordering, which the caller's choice overrides.
    # Names of registered policies (``Policy`` members for the built-in ones).
    policy: str | None = None
    default_policy: str | None = None
    semantics: Semantics = Semantics.KUEUE
    queue: Queue | None = None  # the queue the input names, if it names one
    # Its declared run time (``RUN_SECONDS_ANNOTATION``); None: the queue's or the service's default.
    run_seconds: float | None = None
    # The tree is not Kueue-shaped, so even a Kueue gang needs the hierarchical solver.
    needs_hierarchy: bool = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "needs_hierarchy", _needs_hierarchy(self.root))

    @property
    def hierarchical(self) -> bool:
        """Placed by the hierarchical solver: KAI-style semantics, or a tree Kueue cannot place."""
        return self.semantics is Semantics.HIERARCHY or self.needs_hierarchy

    @property
    def size(self) -> int:
        return self.root.size

    def leaves(self) -> Iterator[Group]:
        return self.root.leaves()


def _needs_hierarchy(root: Group) -> bool:
    """True unless the tree is Kueue-shaped: PodSets (leaves) and PodSet groups (a level over
    leaves) under the root, without minimums, per-group topologies or running pods."""
    for group in root.walk():
        if group.min_member is not None or group.min_sub_group is not None or group.topology is not None:
            return True
        if group.running:
            return True
    if root.is_leaf:
        return False
    if root.level is not None:
        return any(not child.is_leaf for child in root.children)
    return any(not grandchild.is_leaf for child in root.children for grandchild in child.children)


def _all_same_shape(pods: tuple[PodSpec, ...]) -> bool:
    """True when every pod has the first one's shape (one C-level pass per attribute)."""
    if not pods:
        return True
    first = pods[0]
    return (
        _all_equal([p.requests for p in pods], first.requests)
        and _all_equal([p.tolerations for p in pods], first.tolerations)
        and _all_equal([p.node_selector for p in pods], first.node_selector)
    )


def _in_index_order(pods: tuple[PodSpec, ...]) -> bool:
    """Whether the pods' indices are distinct and ascending (the usual case: 0, 1, 2, ...)."""
    indices = [p.index for p in pods]
    if not indices or indices == list(range(indices[0], indices[0] + len(indices))):  # compared in C
        return True
    return indices == sorted(set(indices))


def _all_equal(values: list[object], first: object) -> bool:
    """True when every value equals ``first``. ``list.count`` compares in C and skips ``__eq__``
    for the very same object, which is what most pods of a PodSet share. A tuple or mapping equals
    an empty one exactly when it is empty, which is cheaper to ask (no tolerations, no selector)."""
    if isinstance(first, tuple | Mapping) and not first:
        return not any(values)
    return values.count(first) == len(values)
