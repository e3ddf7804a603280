"""A compiled PodGroup as the IR: the PodGroup is the root ``Group``, subgroups are child
groups with their own constraint and topology, pods sit on the leaves in index order."""

from __future__ import annotations

from collections.abc import Iterable

from toposched.frontends.kai.common import KaiGrouping
from toposched.model import Gang, Group, PodSpec, Policy, Problem, Semantics, WorkloadSpecError
from toposched.wire.kai import PODGROUP_KIND, PodGroup, SubGroup, TopologyConstraint, kai_queue


def to_gang(grouping: KaiGrouping | PodGroup, pods: Iterable[tuple[str | None, PodSpec]]) -> Gang:
    """``pods`` are (subgroup label, pod) pairs; the label must name a leaf subgroup, or be None
    when the PodGroup has no subgroups. Minimums (``minMember``, ``minSubGroup``) and running
    pods (``PodSpec.node``) are kept. Raises ``WorkloadSpecError`` for pods that fit nowhere."""
    group = grouping.pod_group if isinstance(grouping, KaiGrouping) else grouping
    leaves = {sg.name for sg in group.leaves()}
    by_leaf: dict[str | None, list[PodSpec]] = {}
    problems: list[Problem] = []
    for label, pod in pods:
        key = label if group.sub_groups else None
        if group.sub_groups and label not in leaves:
            problems.append(
                Problem(
                    f"pods[{pod.name}]",
                    f"subgroup {label!r} is not a leaf subgroup of PodGroup {group.name}",
                    f"use one of: {', '.join(sorted(leaves))}",
                )
            )
            continue
        by_leaf.setdefault(key, []).append(pod)
    if problems:
        raise WorkloadSpecError(problems)
    # indexed once: a JobSet has a subgroup per Job replica, and looking each up by name in the
    # list would take n² steps
    named: dict[str, SubGroup] = {}
    children: dict[str | None, list[SubGroup]] = {}
    for sub_group in group.sub_groups:
        named.setdefault(sub_group.name, sub_group)
        children.setdefault(sub_group.parent, []).append(sub_group)

    def build(name: str | None) -> Group:
        sg = named.get(name) if name is not None else None
        constraint = sg.constraint if sg is not None else group.constraint
        kids = tuple(build(child.name) for child in children.get(name, ()))
        mine = tuple(sorted(by_leaf.get(name, ()), key=lambda p: (p.index, p.name))) if not kids else ()
        required, preferred, topology = _levels(constraint)
        return Group(
            name=name if name is not None else group.name,
            required=required,
            preferred=preferred,
            min_member=sg.min_member if sg is not None else (None if kids else group.min_member),
            min_sub_group=sg.min_sub_group if sg is not None else group.min_sub_group,
            children=kids,
            pods=mine,
            topology=topology,
        )

    root = build(None)
    return Gang(
        name=group.name,
        root=root,
        namespace=group.namespace,
        topology=root.topology,
        min_member=group.min_member,
        kind=PODGROUP_KIND,
        default_policy=Policy.BINPACK,  # KAI's domain ordering, the default a caller may override
        semantics=Semantics.HIERARCHY,
        queue=kai_queue(group.queue),
    )


def _levels(constraint: TopologyConstraint) -> tuple[str | None, str | None, str | None]:
    # KAI applies a constraint only when it names a Topology.
    if not constraint.topology:
        return None, None, None
    return constraint.required or None, constraint.preferred or None, constraint.topology
