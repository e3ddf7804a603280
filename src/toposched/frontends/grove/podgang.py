"""PodCliqueSet → PodGangs (``scheduler.grove.io/v1alpha1``), as Grove's reconciler builds them.

Per PodCliqueSet replica ``r`` one base PodGang ``<pcs>-<r>`` holds the standalone PodCliques and
scaling-group replicas ``0..minAvailable-1``; every further scaling-group replica ``i`` is a scaled
PodGang ``<pcs>-<r>-<pcsg>-<i-minAvailable>``. Domains are translated to node label keys through
the resolved topology; a domain the topology lacks is dropped (the topology changed after
admission), and with TAS off or no topology nothing is translated.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from toposched.frontends.grove.objects import MANAGED_BY, OPERATOR, Constraint, PodCliqueSet, ScalingGroup
from toposched.model.lenient import mapping
from toposched.wire.grove import GROVE_API, ClusterTopology, podgang_object
from toposched.wire.kai import OwnerReference

TOPOLOGY_NAME = "grove.io/topology-name"
SCHEDULER_NAME = "grove.io/scheduler-name"
PODGANG_LABEL = "grove.io/podgang"
PODCLIQUE_LABEL = "grove.io/podclique"
# The labels Grove selects a PodCliqueSet's PodGangs by (its name, the component).
PART_OF = "app.kubernetes.io/part-of"
COMPONENT = "app.kubernetes.io/component"
PODGANG_COMPONENT = "podgang"
PackConstraint = dict[str, dict[str, str]]


def translate(constraint: Constraint | None, topology: ClusterTopology | None) -> PackConstraint | None:
    """``{"packConstraint": {required?, preferred?}}`` with node label keys, or None."""
    if constraint is None or topology is None:
        return None
    pack: dict[str, str] = {}
    for mode in ("required", "preferred"):
        domain = getattr(constraint, mode)
        key = topology.key_of(domain) if domain else None
        if key is not None:
            pack[mode] = key
    return {"packConstraint": pack} if pack else None


@dataclass(frozen=True, slots=True)
class PodGroupPlan:
    """One PodClique instance of a PodGang: its name, minimum, pods and scheduler."""

    name: str
    min_replicas: int
    replicas: int
    scheduler: str
    constraint: Constraint | None


@dataclass(frozen=True, slots=True)
class BuiltPodGang:
    """A PodGang object and the pod groups it was built from (to create its pods)."""

    object: dict[str, Any]
    groups: tuple[PodGroupPlan, ...]

    @property
    def name(self) -> str:
        return str(self.object["metadata"]["name"])

    def pods(self) -> list[dict[str, Any]]:
        """The pods Grove creates for this PodGang, labelled as the KAI backend needs."""
        pods = []
        for group in self.groups:
            for i in range(group.replicas):
                meta = {
                    "name": f"{group.name}-{i}",
                    "namespace": self.object["metadata"]["namespace"],
                    "labels": {
                        PODGANG_LABEL: self.name,
                        PODCLIQUE_LABEL: group.name,
                        "kai.scheduler/subgroup-name": group.name,
                    },
                    "annotations": {"pod-group-name": self.name, "kai.scheduler/skip-podgrouper": "true"},
                }
                pods.append({"metadata": meta, "spec": {"schedulerName": group.scheduler}})
        return pods


def _plan_group(pcs: PodCliqueSet, prefix: str, group: ScalingGroup, replica: int) -> list[PodGroupPlan]:
    plans = []
    for name in group.clique_names:
        clique = pcs.clique(name)
        if clique is not None:
            plans.append(
                PodGroupPlan(
                    f"{prefix}-{group.name}-{replica}-{name}",
                    clique.min_available,
                    clique.replicas,
                    clique.scheduler_name,
                    clique.constraint,
                )
            )
    return plans


def build_podgangs(
    pcs: PodCliqueSet,
    topology: ClusterTopology | None,
    *,
    tas_enabled: bool = True,
) -> list[BuiltPodGang]:
    """Every PodGang of the PodCliqueSet. ``topology`` is the resolved ClusterTopology (None when
    it does not exist or no constraint applies)."""
    used = topology if tas_enabled else None
    gangs: list[BuiltPodGang] = []
    for r in range(pcs.replicas):
        prefix = f"{pcs.name}-{r}"
        groups = [
            PodGroupPlan(f"{prefix}-{c.name}", c.min_available, c.replicas, c.scheduler_name, c.constraint)
            for c in pcs.cliques
            if pcs.group_of(c.name) is None
        ]
        configs: list[dict[str, Any]] = []
        for group in pcs.scaling_groups:
            for i in range(min(group.min_available, group.replicas)):
                members = _plan_group(pcs, prefix, group, i)
                groups += members
                pack = translate(group.constraint, used)
                if pack is not None:
                    configs.append(
                        {
                            "name": f"{prefix}-{group.name}-{i}",
                            "podGroupNames": [m.name for m in members],
                            "topologyConstraint": pack,
                        }
                    )
        obj = _podgang(pcs, prefix, translate(pcs.constraint, used), configs, groups, used)
        gangs.append(BuiltPodGang(obj, tuple(groups)))
        for group in pcs.scaling_groups:
            # A scaling group without its own constraint falls back to the PodCliqueSet's.
            own = group.constraint if group.constraint is not None else pcs.constraint
            for i in range(group.min_available, group.replicas):
                name = f"{prefix}-{group.name}-{i - group.min_available}"
                members = _plan_group(pcs, prefix, group, i)
                obj = _podgang(pcs, name, translate(own, used), [], members, used)
                gangs.append(BuiltPodGang(obj, tuple(members)))
    return gangs


def _podgang(
    pcs: PodCliqueSet,
    name: str,
    pack: PackConstraint | None,
    configs: list[dict[str, Any]],
    groups: list[PodGroupPlan],
    topology: ClusterTopology | None,
) -> dict[str, Any]:
    podgroups = [
        {
            "name": g.name,
            "minReplicas": g.min_replicas,
            "topologyConstraint": translate(g.constraint, topology),
        }
        for g in groups
    ]
    translated = pack is not None or bool(configs) or any(p["topologyConstraint"] for p in podgroups)
    annotations = {TOPOLOGY_NAME: topology.name} if translated and topology is not None else {}
    scheduler = groups[0].scheduler if groups else "kai-scheduler"
    spec: dict[str, Any] = {
        "topologyConstraint": pack,
        "topologyConstraintGroupConfigs": configs,
        "podgroups": podgroups,
    }
    if pcs.priority_class:
        spec["priorityClassName"] = pcs.priority_class
    labels = {
        MANAGED_BY: OPERATOR,
        PART_OF: pcs.name,
        COMPONENT: PODGANG_COMPONENT,
        SCHEDULER_NAME: scheduler,
    }
    # Grove's controller reference to the PodCliqueSet, once that exists (has a uid).
    owner = OwnerReference(GROVE_API, "PodCliqueSet", pcs.name, pcs.uid) if pcs.uid else None
    return podgang_object(
        name,
        pcs.namespace,
        owner=owner.to_object() if owner is not None else None,
        labels=labels,
        annotations=annotations,
        spec=spec,
    )


def is_podgang_of(podgang: Mapping[str, Any], namespace: str, pcs: str) -> bool:
    """Whether ``podgang`` is one of PodCliqueSet ``namespace/pcs``'s, by Grove's selector labels
    (a PodGang written before its PodCliqueSet existed has no owner reference)."""
    metadata = mapping(podgang.get("metadata"))
    labels = mapping(metadata.get("labels"))
    return bool(
        metadata.get("namespace") == namespace
        and labels.get(PART_OF) == pcs
        and labels.get(COMPONENT) == PODGANG_COMPONENT
    )
