"""The KAI PodGroup of a compiled ``Gang``: its group tree as the PodGroup's subgroup tree, with
each group's constraint, shaped by ``toposched.wire.kai``."""

from __future__ import annotations

from typing import Any

from toposched.model import Gang, Group
from toposched.wire.kai import (
    DEFAULT_QUEUE,
    NO_CONSTRAINT,
    PodGroup,
    SubGroup,
    TopologyConstraint,
    subgroup_name,
)


def podgroup_object(
    gang: Gang, *, queue: str = DEFAULT_QUEUE, priority_class_name: str | None = None
) -> dict[str, Any]:
    """The PodGroup for a gang, as a Kubernetes object (see ``podgroup_of``)."""
    return podgroup_of(gang, queue=queue, priority_class_name=priority_class_name).to_object()


def podgroup_of(
    gang: Gang, *, queue: str = DEFAULT_QUEUE, priority_class_name: str | None = None
) -> PodGroup:
    """The PodGroup for a gang. The root group's constraint is the PodGroup's; every child group
    becomes a subgroup (``parent`` = its enclosing group, top-level children have none), named
    as a DNS label unique in the PodGroup. Leaves carry minMember (their ``min_member``, else
    their pod count); inner subgroups carry their ``min_sub_group`` when set, else need all their
    children. Leaf subgroups come in the gang's leaf order, so ``leaves()`` pairs with it."""
    taken: set[str] = set()
    sub_groups = tuple(
        sg for child in gang.root.children for sg in _subgroups(child, None, gang.topology, taken)
    )
    min_member = None
    if not sub_groups:
        min_member = _leaf_min(gang.root) if gang.min_member is None else gang.min_member
    return PodGroup(
        name=gang.name,
        namespace=gang.namespace,
        min_member=min_member,
        min_sub_group=gang.root.min_sub_group if sub_groups else None,
        queue=queue,
        priority_class_name=priority_class_name or "",
        constraint=constraint_of(gang.root, gang.topology),
        sub_groups=sub_groups,
    )


def _subgroups(
    group: Group, parent: str | None, default_topology: str | None, taken: set[str]
) -> list[SubGroup]:
    name = unique_name(subgroup_name(group.name), taken)
    entry = SubGroup(
        name,
        parent,
        min_member=_leaf_min(group) if group.is_leaf else None,
        min_sub_group=None if group.is_leaf else group.min_sub_group,
        constraint=constraint_of(group, default_topology),
    )
    out = [entry]
    for child in group.children:
        out += _subgroups(child, name, default_topology, taken)
    return out


def unique_name(name: str, taken: set[str]) -> str:
    """``name``, else ``name-2``, ``name-3``...: subgroup names must differ within a PodGroup."""
    candidate, n = name, 1
    while candidate in taken:
        n += 1
        suffix = f"-{n}"
        candidate = name[: 63 - len(suffix)] + suffix
    taken.add(candidate)
    return candidate


def _leaf_min(group: Group) -> int:
    return group.min_member if group.min_member is not None else len(group.pods)


def constraint_of(group: Group, default_topology: str | None) -> TopologyConstraint:
    """The group's constraint; a group naming a topology without a level keeps the name (KAI
    refuses such a group, and so does the engine)."""
    if group.required is None and group.preferred is None:
        return TopologyConstraint(group.topology) if group.topology else NO_CONSTRAINT
    return TopologyConstraint(
        group.topology or default_topology or "", group.required or "", group.preferred or ""
    )
