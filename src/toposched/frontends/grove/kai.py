"""PodGang → KAI PodGroup (``scheduling.run.ai/v2alpha2``), one per PodGang, as Grove's KAI backend
builds it: minMember = Σ pod-group minReplicas, queue from the owning PodCliqueSet, constraint groups
as parent subgroups, pod groups as leaf subgroups."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from toposched.frontends.grove.objects import PodCliqueSet, items, mapping
from toposched.frontends.grove.podgang import TOPOLOGY_NAME
from toposched.model import Problem, WorkloadSpecError

QUEUE = "kai.scheduler/queue"
KAI_TOPOLOGY = "kai.scheduler/topology"
SKIP_PODGROUPER = "kai.scheduler/skip-podgrouper"


@dataclass(frozen=True, slots=True)
class KaiPodGroup:
    """The PodGroup and the annotations the backend adds to the PodGang."""

    object: dict[str, Any]
    podgang_annotations: Mapping[str, str]


def queue_of(pcs: PodCliqueSet) -> str:
    """The owning PodCliqueSet's ``kai.scheduler/queue`` label, then annotation, else the one value
    its PodClique templates share. Missing or conflicting is an error."""
    found = pcs.labels.get(QUEUE) or pcs.annotations.get(QUEUE)
    if found:
        return found
    values = {c.labels[QUEUE] for c in pcs.cliques if QUEUE in c.labels}
    if len(values) == 1:
        return values.pop()
    detail = "is not set" if not values else f"conflicts between cliques ({', '.join(sorted(values))})"
    raise WorkloadSpecError(
        [Problem(f"{pcs.key}.metadata.labels", f"KAI queue {detail}", f"label the PodCliqueSet with {QUEUE}")]
    )


def _kai_constraint(raw: object, topology: str, podgang: str, where: str) -> dict[str, str] | None:
    pack = mapping(mapping(raw).get("packConstraint"))
    out: dict[str, str] = {}
    if pack.get("required"):
        out["requiredTopologyLevel"] = str(pack["required"])
    if pack.get("preferred"):
        out["preferredTopologyLevel"] = str(pack["preferred"])
    if not out:
        return None
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
    return {"topology": topology, **out}


def build_kai_podgroup(podgang: Mapping[str, Any], owner: PodCliqueSet) -> KaiPodGroup:
    """The KAI PodGroup of one PodGang; raises WorkloadSpecError when it cannot be mapped."""
    meta = mapping(podgang.get("metadata"))
    spec = mapping(podgang.get("spec"))
    name = str(meta.get("name") or "")
    notes = {str(k): str(v) for k, v in mapping(meta.get("annotations")).items()}
    topology = notes.get(TOPOLOGY_NAME) or notes.get(KAI_TOPOLOGY) or ""
    podgroups = [mapping(p) for p in items(spec.get("podgroups"))]
    parent_of: dict[str, str] = {}
    sub_groups: list[dict[str, Any]] = []
    for i, config in enumerate(mapping(c) for c in items(spec.get("topologyConstraintGroupConfigs"))):
        members = [str(n) for n in items(config.get("podGroupNames"))]
        if not members:
            continue  # an empty group becomes no subgroup and needs no topology name
        sub_groups.append(
            {
                "name": str(config.get("name")),
                "minMember": None,
                "minSubGroup": len(members),
                "parent": None,
                "topologyConstraint": _kai_constraint(
                    config.get("topologyConstraint"),
                    topology,
                    name,
                    f"spec.topologyConstraintGroupConfigs[{i}].topologyConstraint",
                ),
            }
        )
        parent_of.update({m: str(config.get("name")) for m in members})
    total = 0
    for i, group in enumerate(podgroups):
        minimum = int(group.get("minReplicas") or 0)
        total += minimum
        sub_groups.append(
            {
                "name": str(group.get("name")),
                "minMember": minimum,
                "minSubGroup": None,
                "parent": parent_of.get(str(group.get("name"))),
                "topologyConstraint": _kai_constraint(
                    group.get("topologyConstraint"), topology, name, f"spec.podgroups[{i}].topologyConstraint"
                ),
            }
        )
    root = _kai_constraint(spec.get("topologyConstraint"), topology, name, "spec.topologyConstraint") or {}
    pg_spec: dict[str, Any] = {
        "minMember": total,
        "queue": queue_of(owner),
        "topologyConstraint": root,
        "subGroups": [{k: v for k, v in g.items() if v is not None} for g in sub_groups],
    }
    if spec.get("priorityClassName"):
        pg_spec["priorityClassName"] = str(spec["priorityClassName"])
    labels = {str(k): str(v) for k, v in mapping(meta.get("labels")).items()}
    obj = {
        "apiVersion": "scheduling.run.ai/v2alpha2",
        "kind": "PodGroup",
        "metadata": {
            "name": name,
            "namespace": str(meta.get("namespace") or "default"),
            "labels": labels,
            "annotations": {**notes, SKIP_PODGROUPER: "true"},
            "ownerReferences": [
                {
                    "apiVersion": "scheduler.grove.io/v1alpha1",
                    "kind": "PodGang",
                    "name": name,
                    "controller": True,
                }
            ],
        },
        "spec": pg_spec,
    }
    return KaiPodGroup(obj, {SKIP_PODGROUPER: "true"})
