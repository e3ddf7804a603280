"""KAI Kubernetes objects from the model: the Topology (levels and aliases), a PodGroup built
from a compiled ``Gang`` (subgroup tree with constraints) and the pod metadata patch."""

from __future__ import annotations

import re
from typing import Any

from toposched.model import Gang, Group, Topology

TOPOLOGY_API = "kai.scheduler/v1alpha1"
PODGROUP_API = "scheduling.run.ai/v2alpha2"
SUBGROUP_LABEL = "kai.scheduler/subgroup-name"
POD_GROUP_ANNOTATION = "pod-group-name"
DEFAULT_QUEUE = "default-queue"
_NOT_DNS = re.compile(r"[^a-z0-9-]+")


def topology_object(topology: Topology) -> dict[str, Any]:
    """A ``kai.scheduler/v1alpha1`` Topology: levels coarsest first, each with its alias."""
    alias_of = {label: alias for alias, label in topology.aliases.items()}
    levels: list[dict[str, str]] = []
    for label in topology.levels:
        level = {"nodeLabel": label}
        if label in alias_of:
            level["alias"] = alias_of[label]
        levels.append(level)
    return {
        "apiVersion": TOPOLOGY_API,
        "kind": "Topology",
        "metadata": {"name": topology.name},
        "spec": {"levels": levels},
    }


def subgroup_name(name: str) -> str:
    """A group name as a DNS label, which the PodGroup CRD requires for subgroups."""
    cleaned = _NOT_DNS.sub("-", name.lower()).strip("-")
    return cleaned[:63].rstrip("-") or "group"


def podgroup_object(
    gang: Gang, *, queue: str = DEFAULT_QUEUE, priority_class_name: str | None = None
) -> dict[str, Any]:
    """The PodGroup for a gang. The root group's constraint is the PodGroup's; every child group
    becomes a subgroup (``parent`` = its enclosing group, top-level children have none). Leaves
    carry minMember (their ``min_member``, else their pod count); inner subgroups need all
    their children, so they carry neither field."""
    spec: dict[str, Any] = {"queue": queue}
    if priority_class_name:
        spec["priorityClassName"] = priority_class_name
    constraint = _constraint(gang.root, gang.topology)
    if constraint:
        spec["topologyConstraint"] = constraint
    if gang.root.children:
        spec["subGroups"] = [
            sg for child in gang.root.children for sg in _subgroups(child, None, gang.topology)
        ]
    else:
        spec["minMember"] = _leaf_min(gang.root) if gang.min_member is None else gang.min_member
    return {
        "apiVersion": PODGROUP_API,
        "kind": "PodGroup",
        "metadata": {"name": gang.name, "namespace": gang.namespace},
        "spec": spec,
    }


def _subgroups(group: Group, parent: str | None, default_topology: str | None) -> list[dict[str, Any]]:
    entry: dict[str, Any] = {"name": subgroup_name(group.name)}
    if parent is not None:
        entry["parent"] = parent
    if group.is_leaf:
        entry["minMember"] = _leaf_min(group)
    constraint = _constraint(group, default_topology)
    if constraint:
        entry["topologyConstraint"] = constraint
    out = [entry]
    for child in group.children:
        out += _subgroups(child, entry["name"], default_topology)
    return out


def _leaf_min(group: Group) -> int:
    return group.min_member if group.min_member is not None else len(group.pods)


def _constraint(group: Group, default_topology: str | None) -> dict[str, str]:
    if group.required is None and group.preferred is None:
        return {}
    out = {"topology": group.topology or default_topology or ""}
    if group.required is not None:
        out["requiredTopologyLevel"] = group.required
    if group.preferred is not None:
        out["preferredTopologyLevel"] = group.preferred
    return {k: v for k, v in out.items() if v}


def pod_metadata_patch(podgroup_name: str, subgroup: str | None = None) -> dict[str, Any]:
    """The merge patch the PodGrouper applies to a pod: the PodGroup annotation and, for a
    PodGroup with subgroups, the subgroup label."""
    metadata: dict[str, Any] = {"annotations": {POD_GROUP_ANNOTATION: podgroup_name}}
    if subgroup is not None:
        metadata["labels"] = {SUBGROUP_LABEL: subgroup}
    return {"metadata": metadata}
