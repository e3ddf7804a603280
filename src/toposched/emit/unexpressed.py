"""Sentences for ``Translation.unexpressed``, shared by every target's compiler: one per
constraint of the gang the target has no field for, naming the group, the constraint and what
was written instead."""

from __future__ import annotations

from dataclasses import replace

from toposched.model import Group, Topology


def level_name(topology: Topology, level: str) -> str:
    """A level as users name it: its alias or short name (``rack``)."""
    return topology.short_name(level)


def running_pods(group: Group, scheduler: str) -> list[str]:
    """Pods already bound to nodes: a workload object of ``scheduler`` describes pods to create."""
    running = [pod.name for pod in group.pods if pod.node is not None]
    if not running:
        return []
    return [
        f"group {group.name}: {scheduler} has no running pods in a workload; {', '.join(running)} written as pending"
    ]


def mixed_shapes(group: Group, scheduler: str) -> list[str]:
    """A leaf whose pods differ in requests, tolerations or selector: one template per leaf."""
    if group.same_shape:
        return []
    return [
        f"group {group.name}: {scheduler} writes one pod template per group; its pods differ, the first pod's shape is used"
    ]


def slices(group: Group, scheduler: str, topology: Topology) -> list[str]:
    """Slice layers a target without slices drops."""
    return [
        f"group {group.name}: {scheduler} has no slices; every {layer.size} pods in one "
        f"{level_name(topology, layer.level)} left out"
        for layer in group.slices
    ]


def min_sub_group(group: Group, scheduler: str) -> list[str]:
    if group.min_sub_group is None or group.min_sub_group >= len(group.children):
        return []
    return [
        f"group {group.name}: {scheduler} has no minimum of subgroups; minSubGroup {group.min_sub_group} written as all {len(group.children)}"
    ]


def inner_minimum(group: Group, scheduler: str) -> list[str]:
    """A group with children whose minimum is not its children's: KAI and Grove derive a
    group's minimum from its children and have no field for another one."""
    if group.is_leaf or group.min_member is None:
        return []
    derived = effective_min(replace(group, min_member=None))
    if group.min_member == derived:
        return []
    return [
        f"group {group.name}: {scheduler} sets no minimum on a group with children; "
        f"minMember {group.min_member} written as its children's {derived}"
    ]


def effective_min(group: Group) -> int:
    """Pods the group needs: its ``min_member``, else its children's (all of them), else all pods."""
    if group.min_member is not None:
        return group.min_member
    if group.is_leaf:
        return len(group.pods)
    return sum(effective_min(child) for child in group.children)


def topology_without_level(group: Group, scheduler: str) -> list[str]:
    """A group naming a topology but no level of it (KAI refuses it; no one else can say it)."""
    if group.topology is None or group.level is not None:
        return []
    return [
        f"group {group.name}: names topology {group.topology} without a level, which KAI refuses; "
        f"{scheduler} cannot say that, the group is written unconstrained"
    ]


def on_topology(
    group: Group, topology: Topology, scheduler: str, notes: list[str], *, bare_topology: bool = False
) -> Group:
    """The group tree on the one topology a translation writes: a group constrained on another
    topology is said in ``notes``, and levels ``topology`` lacks are left out and said too.
    ``bare_topology``: the target can name a topology without a level (KAI, which then refuses
    the group); elsewhere such a group is said and left unconstrained."""
    if group.topology not in (None, topology.name):
        notes.append(
            f"group {group.name}: constraint on topology {group.topology} written on {topology.name}"
        )
    if not bare_topology:
        notes += topology_without_level(group, scheduler)
    levels = {}
    for mode, level in (("required", group.required), ("preferred", group.preferred)):
        known = level is not None and level in topology.levels
        if level is not None and not known:
            notes.append(
                f"group {group.name}: {scheduler} writes one topology; {mode} {level} is not a level of "
                f"{topology.name} and is left out"
            )
        levels[mode] = level if known else None
    layers = tuple(layer for layer in group.slices if layer.level in topology.levels)
    if len(layers) != len(group.slices):
        notes.append(f"group {group.name}: slice levels that {topology.name} lacks are left out")
    children = tuple(
        on_topology(child, topology, scheduler, notes, bare_topology=bare_topology)
        for child in group.children
    )
    constrained = levels["required"] is not None or levels["preferred"] is not None
    named = constrained or (bare_topology and group.topology is not None)
    return replace(
        group,
        required=levels["required"],
        preferred=levels["preferred"],
        slices=layers,
        children=children,
        topology=topology.name if named else None,
    )
