"""Structural PodCliqueSet rules (Grove's CRD rules and pod-template checks), checked before
anything topology-related."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from toposched.frontends.grove.objects import Constraint, PodCliqueSet
from toposched.model import Problem
from toposched.model.lenient import items, mapping

T = "spec.template"
Located = tuple[str, str, Constraint]  # field path, readable owner, constraint


def located(pcs: PodCliqueSet) -> list[Located]:
    """Every constraint of the PodCliqueSet with its field path and a readable owner."""
    found: list[Located] = []
    if pcs.constraint is not None:
        found.append((f"{T}.topologyConstraint", f"PodCliqueSet {pcs.name!r}", pcs.constraint))
    for i, clique in enumerate(pcs.cliques):
        if clique.constraint is not None:
            found.append(
                (f"{T}.cliques[{i}].topologyConstraint", f"PodClique {clique.name!r}", clique.constraint)
            )
    for i, group in enumerate(pcs.scaling_groups):
        if group.constraint is not None:
            owner = f"PodCliqueScalingGroup {group.name!r}"
            found.append((f"{T}.podCliqueScalingGroups[{i}].topologyConstraint", owner, group.constraint))
    return found


def constraint_problems(pcs: PodCliqueSet) -> list[Problem]:
    """A constraint sets packDomain or pack; pack sets required or preferred; not both
    packDomain and pack.required."""
    problems: list[Problem] = []
    for path, who, c in located(pcs):
        if c.pack_domain is None and not c.has_pack:
            problems.append(
                Problem(
                    path,
                    f"topologyConstraint of {who} must set packDomain or pack",
                    "write packDomain: <domain>",
                )
            )
        if c.has_pack and c.pack_required is None and c.pack_preferred is None:
            problems.append(
                Problem(
                    f"{path}.pack",
                    f"pack must specify at least one of required or preferred ({who})",
                    "set pack.required or pack.preferred",
                )
            )
        if c.pack_domain is not None and c.pack_required is not None:
            problems.append(
                Problem(
                    path,
                    f"topologyConstraint of {who} must not set both packDomain and pack.required",
                    "they mean the same thing; keep one",
                )
            )
    clique_names = {c.name for c in pcs.cliques}
    for i, group in enumerate(pcs.scaling_groups):
        for j, name in enumerate(group.clique_names):
            if name not in clique_names:
                problems.append(
                    Problem(
                        f"{T}.podCliqueScalingGroups[{i}].cliqueNames[{j}]",
                        f"scaling group {group.name!r} lists unknown clique {name!r}",
                        "name cliques defined under spec.template.cliques",
                    )
                )
    return problems


def pod_template_problems(obj: Mapping[str, Any]) -> list[Problem]:
    """Grove places pods itself: pod templates must not set topology spread or a node name."""
    problems: list[Problem] = []
    template = mapping(mapping(obj.get("spec")).get("template"))
    for i, raw in enumerate(items(template.get("cliques"))):
        clique = mapping(raw)
        pod_spec = mapping(mapping(clique.get("spec")).get("podSpec"))
        for field in ("topologySpreadConstraints", "nodeName"):
            if pod_spec.get(field):
                problems.append(
                    Problem(
                        f"{T}.cliques[{i}].spec.podSpec.{field}",
                        f"{field} must not be set (PodClique {clique.get('name')!r})",
                        "use topologyConstraint to place pods",
                    )
                )
    return problems
