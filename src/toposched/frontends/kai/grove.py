"""Grove PodGang: pack constraints become topology constraints, group configs become parent
subgroups (listed first), podgroups become leaves with minMember = minReplicas."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from toposched.frontends.kai import keys
from toposched.frontends.kai.common import (
    KaiGrouping,
    constraint_from,
    count,
    dig,
    fail,
    namespace,
    notes_of,
    queue,
)
from toposched.model.lenient import mapping
from toposched.wire.kai import NO_CONSTRAINT, PodGroup, SubGroup, TopologyConstraint


def group_podgang(workload: Mapping[str, Any], pod: Mapping[str, Any], *, max_pods: int) -> KaiGrouping:
    """Group a pod of a PodGang. The topology name comes from ``grove.io/topology-name``, else
    ``kai.scheduler/topology``; a pack constraint without any name is an error."""
    notes = notes_of(workload)
    topology = str(notes.get(keys.GROVE_TOPOLOGY_NAME) or notes.get(keys.TOPOLOGY) or "")
    spec = mapping(workload.get("spec"))
    ns = namespace(workload, pod)
    root = _pack(spec, topology, "spec")
    if root.is_empty:
        root = constraint_from({**notes, keys.TOPOLOGY: topology})
    podgroups = [mapping(p) for p in (spec.get("podgroups") or [])]
    configs = [mapping(c) for c in (spec.get("topologyConstraintGroupConfigs") or [])]
    parent_of: dict[str, str] = {}
    sub_groups: list[SubGroup] = []
    for i, config in enumerate(configs):
        names = [str(n) for n in (config.get("podGroupNames") or [])]
        if not names:
            continue
        name = str(config.get("name") or f"group-{i}")
        constraint = _pack(config, topology, f"spec.topologyConstraintGroupConfigs[{i}]")
        sub_groups.append(SubGroup(name, min_sub_group=len(names), constraint=constraint))
        for member in names:
            parent_of.setdefault(member, name)
    pod_name = str(dig(pod, "metadata", "name") or "")
    subgroup = None
    total = 0
    for i, pg in enumerate(podgroups):
        where = f"spec.podgroups[{i}]"
        name = str(pg.get("name") or "")
        minimum = count(pg.get("minReplicas"), f"{where}.minReplicas", 0, limit=max_pods)
        total += minimum
        constraint = _pack(pg, topology, where)
        sub_groups.append(
            SubGroup(name, parent=parent_of.get(name), min_member=minimum, constraint=constraint)
        )
        for j, ref in enumerate(pg.get("podReferences") or []):
            ref_ns = str(mapping(ref).get("namespace") or ns)
            if ref_ns != ns:
                raise fail(
                    f"{where}.podReferences[{j}].namespace",
                    f"pod reference to namespace {ref_ns} differs from the PodGang namespace {ns}",
                    "pods of a PodGang live in its namespace",
                )
            if mapping(ref).get("name") == pod_name:
                subgroup = name
    group = PodGroup(
        name=str(dig(workload, "metadata", "name") or ""),
        namespace=ns,
        min_member=total,
        queue=queue(workload, pod),
        constraint=root,
        sub_groups=tuple(sub_groups),
    )
    return KaiGrouping(group, subgroup)


def _pack(owner: Mapping[str, Any], topology: str, where: str) -> TopologyConstraint:
    pack = mapping(dig(owner, "topologyConstraint", "packConstraint"))
    required = str(pack.get("required") or "")
    preferred = str(pack.get("preferred") or "")
    if not (required or preferred):
        return NO_CONSTRAINT
    if not topology:
        raise fail(
            f"{where}.topologyConstraint.packConstraint",
            "pack constraint without a topology name",
            f"annotate the PodGang with {keys.GROVE_TOPOLOGY_NAME}",
        )
    return TopologyConstraint(topology, required, preferred)
