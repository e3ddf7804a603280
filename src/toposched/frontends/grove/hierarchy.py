"""Domain rules against one ClusterTopology: every domain exists; going PodCliqueSet → scaling
group → PodClique a domain stays equal or gets narrower; a preferred domain coarser than the
required one is redundant (a warning)."""

from __future__ import annotations

from toposched.frontends.grove.checks import Located, T, located
from toposched.frontends.grove.objects import Constraint, PodCliqueSet
from toposched.model import Problem
from toposched.wire.grove import ClusterTopology


def _fields(c: Constraint) -> list[tuple[str, str, str]]:
    """(mode, field path suffix, domain) for each domain the constraint names."""
    out = []
    if c.pack_required is not None:
        out.append(("required", "pack.required", c.pack_required))
    elif c.pack_domain is not None:
        out.append(("required", "packDomain", c.pack_domain))
    if c.pack_preferred is not None:
        out.append(("preferred", "pack.preferred", c.pack_preferred))
    return out


def domain_problems(topology: ClusterTopology, constraints: list[Located]) -> list[Problem]:
    known = [level.domain for level in topology.levels]
    problems = []
    for path, who, c in constraints:
        for _, suffix, domain in _fields(c):
            if topology.depth(domain) is None:
                problems.append(
                    Problem(
                        f"{path}.{suffix}",
                        f"topology domain {domain!r} of {who} does not exist in cluster topology "
                        f"{topology.name!r} {known}",
                        f"use one of {', '.join(known)}",
                    )
                )
    return problems


def hierarchy_problems(pcs: PodCliqueSet, topology: ClusterTopology) -> list[Problem]:
    """Parent vs child, required with required and preferred with preferred; an empty or
    unknown side skips the check."""
    paths = {who: (path, c) for path, who, c in located(pcs)}
    pcs_who = f"PodCliqueSet {pcs.name!r}"
    pairs: list[tuple[str, str]] = []
    for clique in pcs.cliques:
        pairs.append((pcs_who, f"PodClique {clique.name!r}"))
    for group in pcs.scaling_groups:
        group_who = f"PodCliqueScalingGroup {group.name!r}"
        pairs.append((pcs_who, group_who))
        pairs += [(group_who, f"PodClique {name!r}") for name in group.clique_names]
    problems = []
    for parent, child in pairs:
        if parent not in paths or child not in paths:
            continue
        parent_c, (child_path, child_c) = paths[parent][1], paths[child]
        for mode in ("required", "preferred"):
            upper = getattr(parent_c, mode)
            lower = getattr(child_c, mode)
            up, low = topology.depth(upper or ""), topology.depth(lower or "")
            if up is not None and low is not None and up > low:
                problems.append(
                    Problem(
                        child_path,
                        f"{parent} topology constraint domain {upper!r} is narrower than "
                        f"{child} topology constraint domain {lower!r} ({mode})",
                        "a child's domain must be equal to or narrower than its parent's",
                    )
                )
    return problems


def redundancy_warnings(topology: ClusterTopology, constraints: list[Located]) -> list[str]:
    warnings = []
    for path, who, c in constraints:
        req, pref = topology.depth(c.required or ""), topology.depth(c.preferred or "")
        if req is not None and pref is not None and pref < req:
            warnings.append(
                f"{path}: preferred domain {c.preferred!r} of {who} is coarser than required domain "
                f"{c.required!r} and is redundant"
            )
    return warnings


__all__ = ["T", "domain_problems", "hierarchy_problems", "redundancy_warnings"]
