"""The keys the controller reads on pods and writes on them.

A pod is the controller's to ungate when it carries the scheduling gate ``GATE`` and a gang
identity: the Kueue pod-group label (with the total-count annotation), the ``pod-group-name``
annotation KAI, OSMO and Grove put on their pods (naming a KAI PodGroup), Grove's PodGang label,
or upstream Kubernetes' ``spec.schedulingGroup.podGroupName`` (naming a ``scheduling.k8s.io``
PodGroup; 1.35's ``spec.workloadRef`` names a Workload's template instead). A pod's key names what
the pod itself says; ``composites`` moves the pods of a PodGroup with a parent to its tree.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from toposched.frontends.kai.keys import GROVE_PODGANG
from toposched.frontends.kai.keys import POD_GROUP_NAME as KAI_POD_GROUP
from toposched.frontends.kueue.keys import POD_GROUP_NAME as KUEUE_POD_GROUP
from toposched.frontends.kueue.keys import POD_GROUP_TOTAL_COUNT as KUEUE_TOTAL_COUNT
from toposched.wire.scheduling import read_pod_link, stamped_name

GATE = "toposched.io/topology"  # the scheduling gate the controller removes
ASSIGNMENT = "toposched.io/assignment"  # the pod's recorded assignment (JSON, see ``records``)
BATCH = "toposched.io/gang-assignments"  # the assignments of a gang's pods written after this one
FIELD_MANAGER = "toposched"

__all__ = [
    "ASSIGNMENT",
    "BATCH",
    "FIELD_MANAGER",
    "GATE",
    "GangKey",
    "Membership",
    "gang_of",
    "is_gated",
    "kueue_total",
]


class Membership(StrEnum):
    """How a pod names its gang."""

    KUEUE = "kueue"  # kueue.x-k8s.io/pod-group-name label + pod-group-total-count annotation
    KAI = "kai"  # pod-group-name annotation (KAI, OSMO, Grove) or grove.io/podgang: a KAI PodGroup
    KUBE = "kube"  # spec.schedulingGroup.podGroupName (or 1.35 workloadRef): a scheduling.k8s.io PodGroup
    KUBE_COMPOSITE = "kube-composite"  # that PodGroup has a parent: the root CompositePodGroup of its tree


@dataclass(frozen=True, slots=True, order=True)
class GangKey:
    """One gang: how its pods name it, their namespace and the group's name."""

    membership: Membership
    namespace: str
    name: str

    def __str__(self) -> str:
        return f"{self.membership}:{self.namespace}/{self.name}"


def _metadata(pod: Mapping[str, Any], field: str) -> Mapping[str, Any]:
    metadata = pod.get("metadata") or {}
    value = metadata.get(field)
    return value if isinstance(value, Mapping) else {}


def namespace_of(obj: Mapping[str, Any]) -> str:
    return str((obj.get("metadata") or {}).get("namespace") or "default")


def name_of(obj: Mapping[str, Any]) -> str:
    return str((obj.get("metadata") or {}).get("name", ""))


def annotations_of(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    return _metadata(obj, "annotations")


def gang_of(pod: Mapping[str, Any]) -> GangKey | None:
    """The gang a pod belongs to, or None when it names none."""
    labels, annotations = _metadata(pod, "labels"), annotations_of(pod)
    namespace = namespace_of(pod)
    kueue = labels.get(KUEUE_POD_GROUP)
    if kueue:
        return GangKey(Membership.KUEUE, namespace, str(kueue))
    kai = annotations.get(KAI_POD_GROUP) or labels.get(GROVE_PODGANG)
    if kai:
        return GangKey(Membership.KAI, namespace, str(kai))
    link = read_pod_link(pod)
    if link.pod_group is not None:
        return GangKey(Membership.KUBE, namespace, link.pod_group)
    if link.workload is not None and link.template is not None:
        return GangKey(Membership.KUBE, namespace, stamped_name(link.workload, link.template))
    return None


def kueue_total(pod: Mapping[str, Any]) -> int | None:
    """The Kueue pod group's total count, None when absent or not a positive number."""
    raw = annotations_of(pod).get(KUEUE_TOTAL_COUNT)
    try:
        total = int(str(raw))
    except ValueError:
        return None
    return total if total > 0 else None


def is_gated(pod: Mapping[str, Any]) -> bool:
    """Whether the pod still carries the controller's scheduling gate."""
    gates = (pod.get("spec") or {}).get("schedulingGates") or []
    return any(isinstance(g, Mapping) and g.get("name") == GATE for g in gates)


def is_terminating(pod: Mapping[str, Any]) -> bool:
    return bool((pod.get("metadata") or {}).get("deletionTimestamp"))
