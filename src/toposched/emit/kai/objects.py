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
    """The PodGroup for a gang. The root group's constraint is the PodGroup's; every child group
    becomes a subgroup (``parent`` = its enclosing group, top-level children have none). Leaves
    carry minMember (their ``min_member``, else their pod count); inner subgroups need all
    their children, so they carry neither field."""
    sub_groups = tuple(sg for child in gang.root.children for sg in _subgroups(child, None, gang.topology))
    min_member = None
    if not sub_groups:
        min_member = _leaf_min(gang.root) if gang.min_member is None else gang.min_member
    podgroup = PodGroup(
        name=gang.name,
        namespace=gang.namespace,
        min_member=min_member,
        queue=queue,
        priority_class_name=priority_class_name or "",
        constraint=_constraint(gang.root, gang.topology),
        sub_groups=sub_groups,
    )
    return podgroup.to_object()


def _subgroups(group: Group, parent: str | None, default_topology: str | None) -> list[SubGroup]:
    name = subgroup_name(group.name)
    entry = SubGroup(
        name,
        parent,
        min_member=_leaf_min(group) if group.is_leaf else None,
        constraint=_constraint(group, default_topology),
    )
    out = [entry]
    for child in group.children:
        out += _subgroups(child, name, default_topology)
    return out


def _leaf_min(group: Group) -> int:
    return group.min_member if group.min_member is not None else len(group.pods)


def _constraint(group: Group, default_topology: str | None) -> TopologyConstraint:
    if group.required is None and group.preferred is None:
        return NO_CONSTRAINT
    return TopologyConstraint(
        group.topology or default_topology or "", group.required or "", group.preferred or ""
    )
