"""Grove's KAI backend: the KAI PodGroup of each PodGang (minMember = Σ pod-group minReplicas, queue
from the owning PodCliqueSet, constraint groups as parent subgroups, pod groups as leaf subgroups)
and the KAI Topology kept per ClusterTopology."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from toposched.frontends.grove.objects import PodCliqueSet
from toposched.frontends.grove.podgang import TOPOLOGY_NAME
from toposched.model import Problem, WorkloadSpecError
from toposched.model.lenient import items, mapping
from toposched.wire.grove import CLUSTER_TOPOLOGY_KIND, GROVE_API, PODGANG_API, PODGANG_KIND
from toposched.wire.kai import (
    NO_CONSTRAINT,
    QUEUE_LABEL,
    PodGroup,
    SubGroup,
    TopologyConstraint,
    owner_reference,
    topology_object,
)

KAI_TOPOLOGY = "kai.scheduler/topology"
SKIP_PODGROUPER = "kai.scheduler/skip-podgrouper"


@dataclass(frozen=True, slots=True)
class KaiPodGroup:
    """The PodGroup and the annotations the backend adds to the PodGang."""

    object: dict[str, Any]
    podgang_annotations: Mapping[str, str]


def named_queue(pcs: PodCliqueSet) -> str:
    """The owning PodCliqueSet's ``kai.scheduler/queue`` label, then annotation, else the one value
    its PodClique templates share; "" when none is set or the cliques' values conflict."""
    found = pcs.labels.get(QUEUE_LABEL) or pcs.annotations.get(QUEUE_LABEL)
    if found:
        return found
    values = {c.labels[QUEUE_LABEL] for c in pcs.cliques if QUEUE_LABEL in c.labels}
    return values.pop() if len(values) == 1 else ""


def queue_of(pcs: PodCliqueSet) -> str:
    """``named_queue``, which Grove's KAI backend requires: missing or conflicting is an error."""
    found = named_queue(pcs)
    if found:
        return found
    values = {c.labels[QUEUE_LABEL] for c in pcs.cliques if QUEUE_LABEL in c.labels}
    detail = "is not set" if not values else f"conflicts between cliques ({', '.join(sorted(values))})"
    raise WorkloadSpecError(
        [
            Problem(
                f"{pcs.key}.metadata.labels",
                f"KAI queue {detail}",
                f"label the PodCliqueSet with {QUEUE_LABEL}",
            )
        ]
    )


def kai_topology(name: str, keys: Sequence[str], owner: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The KAI Topology Grove keeps for a ClusterTopology: its node label keys, controlled by the
    ClusterTopology object ``owner`` once that has a uid (None: an externally managed one)."""
    controller = owner_reference(GROVE_API, CLUSTER_TOPOLOGY_KIND, owner) if owner is not None else None
    return topology_object(name, keys, owner=controller)


def _kai_constraint(raw: object, topology: str, podgang: str, where: str) -> TopologyConstraint:
    pack = mapping(mapping(raw).get("packConstraint"))
    required, preferred = str(pack.get("required") or ""), str(pack.get("preferred") or "")
    if not (required or preferred):
        return NO_CONSTRAINT
    if not topology:
        raise WorkloadSpecError(
            [
                Problem(
                    where,
                    f"PodGang {podgang!r}: topology name cannot be empty when a topology constraint is set",
                    f"annotate the PodGang with {TOPOLOGY_NAME}",
                )
            ]
        )
    return TopologyConstraint(topology, required, preferred)


def build_kai_podgroup(podgang: Mapping[str, Any], owner: PodCliqueSet) -> KaiPodGroup:
    """The KAI PodGroup of one PodGang; raises WorkloadSpecError when it cannot be mapped."""
    meta = mapping(podgang.get("metadata"))
    spec = mapping(podgang.get("spec"))
    name = str(meta.get("name") or "")
    notes = {str(k): str(v) for k, v in mapping(meta.get("annotations")).items()}
    topology = notes.get(TOPOLOGY_NAME) or notes.get(KAI_TOPOLOGY) or ""
    podgroups = [mapping(p) for p in items(spec.get("podgroups"))]
    parent_of: dict[str, str] = {}
    sub_groups: list[SubGroup] = []
    for i, config in enumerate(mapping(c) for c in items(spec.get("topologyConstraintGroupConfigs"))):
        members = [str(n) for n in items(config.get("podGroupNames"))]
        if not members:
            continue  # an empty group becomes no subgroup and needs no topology name
        constraint = _kai_constraint(
            config.get("topologyConstraint"),
            topology,
            name,
            f"spec.topologyConstraintGroupConfigs[{i}].topologyConstraint",
        )
        sub_groups.append(
            SubGroup(str(config.get("name")), min_sub_group=len(members), constraint=constraint)
        )
        parent_of.update({m: str(config.get("name")) for m in members})
    total = 0
    for i, group in enumerate(podgroups):
        minimum = int(group.get("minReplicas") or 0)
        total += minimum
        constraint = _kai_constraint(
            group.get("topologyConstraint"), topology, name, f"spec.podgroups[{i}].topologyConstraint"
        )
        group_name = str(group.get("name"))
        sub_groups.append(
            SubGroup(group_name, parent_of.get(group_name), min_member=minimum, constraint=constraint)
        )
    podgroup = PodGroup(
        name=name,
        namespace=str(meta.get("namespace") or "default"),
        min_member=total,
        queue=queue_of(owner),
        priority_class_name=str(spec.get("priorityClassName") or ""),
        constraint=_kai_constraint(spec.get("topologyConstraint"), topology, name, "spec.topologyConstraint"),
        sub_groups=tuple(sub_groups),
        labels={str(k): str(v) for k, v in mapping(meta.get("labels")).items()},
        annotations={**notes, SKIP_PODGROUPER: "true"},
        owner=owner_reference(PODGANG_API, PODGANG_KIND, podgang),  # none until the PodGang exists
    )
    return KaiPodGroup(podgroup.to_object(write_empty=True), {SKIP_PODGROUPER: "true"})
