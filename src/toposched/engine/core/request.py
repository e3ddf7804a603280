"""From the IR to Kueue-style placement requests, with Kueue's structural checks and messages.

The gang's root is a container; each child is either a PodSet (a leaf group) or a PodSet group
(an inner group with a level and one or two leaf children: the front end marks the leader, a
single pod, and the workers with ``Group.role``). Children are placed in order, all-or-nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from toposched.engine.core.messages import Reasons
from toposched.engine.core.policy_registry import PlacementPolicy
from toposched.engine.core.strategy import Spread, Strategy
from toposched.model import Group, Mode, Resources, Role, SliceLayer, Toleration, Unschedulable
from toposched.snapshot import PodShape
from toposched.topology import TopologyTree


@dataclass(frozen=True, slots=True)
class Request:
    """One placement problem: a PodSet, or a PodSet group's workers plus its leader pod."""

    name: str  # PodSet or PodSet-group name, used in reasons
    workers: Group
    leader: Group | None
    count: int
    shape: PodShape
    leader_requests: Resources | None
    level: int
    level_key: str
    mode: Mode
    slice_level: int
    slice_size: int
    strategy: Strategy
    spread: Spread | None  # the policy's own placement of a preferred request (balanced)
    inner_sizes: Mapping[int, int] = field(default_factory=lambda: MappingProxyType({}))
    layers: tuple[SliceLayer, ...] = ()  # every slice layer (label keys) when there are inner layers

    @property
    def leader_count(self) -> int:
        return 0 if self.leader is None else 1

    @property
    def required(self) -> bool:
        return self.mode is Mode.REQUIRED

    @property
    def unconstrained(self) -> bool:
        return self.mode is Mode.UNCONSTRAINED


@dataclass(frozen=True, slots=True)
class Unit:
    """One child of the gang root: a PodSet or a PodSet group, before checks."""

    name: str
    workers: Group
    leader: Group | None
    required: str | None
    preferred: str | None
    slices: tuple[SliceLayer, ...]
    members: tuple[Group, ...] = ()  # the PodSets in workload order

    def alone(self, leaf: Group) -> Unit:
        """One member PodSet on its own, under this unit's level (node replacement)."""
        slices = self.slices if leaf is self.workers else leaf.slices
        return Unit(leaf.name, leaf, None, self.required, self.preferred, slices, (leaf,))


def units_of(root: Group, reasons: Reasons) -> list[Unit] | Unschedulable:
    """The PodSets and PodSet groups of a gang, in workload order."""
    if root.is_leaf:
        return [_leaf_unit(root)]
    if root.level is not None:
        unit = _group_unit(root, reasons)
        return unit if isinstance(unit, Unschedulable) else [unit]
    units: list[Unit] = []
    for child in root.children:
        unit = _leaf_unit(child) if child.is_leaf else _group_unit(child, reasons)
        if isinstance(unit, Unschedulable):
            return unit
        units.append(unit)
    return units


def _leaf_unit(leaf: Group) -> Unit:
    return Unit(leaf.name, leaf, None, leaf.required, leaf.preferred, leaf.slices, (leaf,))


def _group_unit(group: Group, reasons: Reasons) -> Unit | Unschedulable:
    if not all(child.is_leaf for child in group.children) or len(group.children) > 2:
        return reasons.refuse(
            f"group {group.name!r} must hold one or two PodSets (leader and workers), "
            f"not {len(group.children)} children or nested groups",
            group=group.name,
        )
    if group.level is None:
        return reasons.refuse(
            f"PodSet group {group.name!r} co-locates its PodSets but requests no topology level; "
            "set required or preferred on the group",
            group=group.name,
        )
    if len(group.children) == 1:
        only = group.children[0]
        return Unit(
            only.name, only, None, group.required, group.preferred, only.slices or group.slices, (only,)
        )
    roles = {child.role: child for child in group.children}
    leader, workers = roles.get(Role.LEADER), roles.get(Role.WORKERS)
    if leader is None or workers is None:
        return reasons.refuse(
            f"PodSet group {group.name!r} must mark one PodSet as leader and the other as workers",
            group=group.name,
        )
    if len(leader.pods) != 1:
        return reasons.refuse(
            f"PodSet group {group.name!r} needs a leader PodSet of exactly 1 pod; "
            f"{leader.name!r} has {len(leader.pods)}",
            group=group.name,
        )
    return Unit(
        group.name,
        workers,
        leader,
        group.required,
        group.preferred,
        workers.slices or group.slices,
        group.children,
    )


def shape_of(group: Group) -> PodShape:
    """The pod shape of a PodSet. Pods of one PodSet normally share it (``Group.same_shape``);
    when they do not, the shape is made conservative (per-resource maximum, tolerations every pod
    has, all selectors)."""
    pods = group.pods
    if not pods:
        return PodShape(Resources())
    first = pods[0]
    if group.same_shape:
        return PodShape(first.requests, first.tolerations, tuple(sorted(first.node_selector.items())))
    requests = first.requests
    tolerations: list[Toleration] = list(first.tolerations)
    selector: dict[str, str] = {}
    conflict = False
    for pod in pods:
        requests = requests.maximum(pod.requests)
        tolerations = [t for t in tolerations if t in pod.tolerations]
        for key, value in pod.node_selector.items():
            conflict |= selector.setdefault(key, value) != value
    pairs = tuple(sorted(selector.items()))
    if conflict:  # no node carries two values for one key; an impossible pair says so
        pairs = (*pairs, ("", ""))
    return PodShape(requests, tuple(tolerations), pairs)


def compile_unit(
    unit: Unit, tree: TopologyTree, policy: PlacementPolicy, reasons: Reasons, count: int | None = None
) -> Request | Unschedulable:
    """Check one unit as Kueue does (same order, same messages) and resolve its levels."""

    def invalid(message: str, level: str | None = None) -> Unschedulable:
        return reasons.refuse(message, group=unit.name, level=level)

    levels = tree.levels
    slices = unit.slices
    if slices and slices[0].size <= 0:
        return invalid("slice topology requested, but slice size not provided")
    if unit.required is not None:
        mode, key = Mode.REQUIRED, unit.required
    elif unit.preferred is not None:
        mode, key = Mode.PREFERRED, unit.preferred
    else:
        mode, key = Mode.UNCONSTRAINED, levels[0] if slices else levels[-1]
    level = tree.level_index(key)
    if level is None:
        return invalid(f"no requested topology level: {key}", key)
    slice_key = slices[0].level if slices else levels[-1]
    slice_level = tree.level_index(slice_key)
    if slice_level is None:
        return invalid(f"no requested topology level for slices: {slice_key}", slice_key)
    if level > slice_level:
        return invalid(f"podset slice topology {slice_key} is above the podset topology {key}", key)
    slice_size = slices[0].size if slices else 1
    inner: dict[int, int] = {}
    keys = [levels[slice_level]]  # every layer's level as its label key
    previous_size, previous_level = slice_size, slice_level
    for layer in slices[1:]:
        inner_level = tree.level_index(layer.level)
        if inner_level is None:
            return invalid(f"no requested topology level for additional slice layer: {layer.level}")
        if inner_level <= previous_level:
            return invalid(
                f"additional slice layer topology {layer.level} must be at a lower level than "
                f"{levels[previous_level]}",
            )
        if layer.size <= 0:
            return invalid("slice topology requested, but slice size not provided")
        if previous_size % layer.size != 0:
            return invalid(
                f"additional slice layer size {layer.size} must evenly divide parent layer size {previous_size}",
            )
        for lvl in range(previous_level + 1, inner_level + 1):
            inner[lvl] = layer.size
        keys.append(levels[inner_level])
        previous_size, previous_level = layer.size, inner_level
    pods = len(unit.workers.pods) if count is None else count
    if count is None and pods % slice_size != 0:
        # DESIGN.md: the seed requires slices to divide the PodSet; Kueue would silently leave the
        # remainder without a domain.
        return invalid(
            f"slice size {slice_size} does not evenly divide the {pods} pods of PodSet {unit.workers.name!r}",
            slice_key,
        )
    strategy, spread = policy.for_request(mode)
    layers = tuple(map(SliceLayer, keys, (s.size for s in slices))) if inner else ()
    return Request(
        name=unit.name,
        workers=unit.workers,
        leader=unit.leader,
        count=pods,
        shape=shape_of(unit.workers),
        leader_requests=None if unit.leader is None else shape_of(unit.leader).requests,
        level=level,
        level_key=levels[level],
        mode=mode,
        slice_level=slice_level,
        slice_size=slice_size,
        strategy=strategy,
        spread=spread,
        inner_sizes=MappingProxyType(inner),
        layers=layers,
    )
