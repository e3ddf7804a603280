"""Topology level aliases: every constraint's level strings that name an alias of the
constraint's own Topology become that level's node-label key; anything else passes through."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from toposched.model import Topology
from toposched.wire.kai import PodGroup, TopologyConstraint


def resolve_constraint(constraint: TopologyConstraint, topologies: Iterable[Topology]) -> TopologyConstraint:
    """Rewrite aliases against the Topology the constraint names (unknown names: unchanged)."""
    topology = next((t for t in topologies if t.name == constraint.topology), None)
    if topology is None:
        return constraint
    return TopologyConstraint(
        constraint.topology,
        topology.aliases.get(constraint.required, constraint.required),
        topology.aliases.get(constraint.preferred, constraint.preferred),
    )


def resolve_group(group: PodGroup, topologies: Iterable[Topology]) -> PodGroup:
    """The PodGroup with aliases resolved at every level of its tree."""
    catalog = tuple(topologies)
    return replace(
        group,
        constraint=resolve_constraint(group.constraint, catalog),
        sub_groups=tuple(
            replace(sg, constraint=resolve_constraint(sg.constraint, catalog)) for sg in group.sub_groups
        ),
    )


def resolved_levels(group: PodGroup, topologies: Iterable[Topology]) -> dict[str, TopologyConstraint]:
    """Constraint per subgroup name after resolution; ``""`` is the PodGroup itself."""
    resolved = resolve_group(group, topologies)
    out = {"": resolved.constraint}
    out.update({sg.name: sg.constraint for sg in resolved.sub_groups})
    return out
