"""The Kubernetes objects OSMO makes for KAI: one PodGroup per task group, pod metadata, and one
Topology per pool. Plain dicts following the KAI CRDs (``scheduling.run.ai/v2alpha2`` PodGroup,
``kai.scheduler/v1alpha1`` Topology)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from toposched.frontends.osmo.pool import Pool
from toposched.frontends.osmo.tree import SubGroupSpec, TopologyTree
from toposched.frontends.osmo.workflow import TaskGroup

PODGROUP_API = "scheduling.run.ai/v2alpha2"
TOPOLOGY_API = "kai.scheduler/v1alpha1"
QUEUE_LABEL = "kai.scheduler/queue"
LEGACY_QUEUE_LABEL = "runai/queue"  # read by KAI before v0.6
SUBGROUP_LABEL = "kai.scheduler/subgroup-name"
PODGROUP_ANNOTATION = "pod-group-name"
NAMESPACE_LABEL = "osmo.namespace"
POOL_LABEL = "osmo.pool"


class Priority(StrEnum):
    """Chosen at submission; names the priority class ``osmo-<priority>``."""

    HIGH = "HIGH"
    NORMAL = "NORMAL"
    LOW = "LOW"

    @property
    def class_name(self) -> str:
        return f"osmo-{self.value.lower()}"

    @property
    def rank(self) -> int:
        return {"LOW": 0, "NORMAL": 1, "HIGH": 2}[self.value]


@dataclass(frozen=True, slots=True)
class CompiledGroup:
    """One task group compiled: its PodGroup name and spec, and each task's pod metadata."""

    group: TaskGroup
    name: str
    namespace: str
    pool: Pool
    priority: Priority
    tree: TopologyTree

    @property
    def has_subgroups(self) -> bool:
        return bool(self.tree.subgroups)

    def spec(self) -> dict[str, Any]:
        """The PodGroup ``spec``. ``minMember`` only without subgroups (then leaves carry it)."""
        out: dict[str, Any] = {"queue": self.pool.queue, "priorityClassName": self.priority.class_name}
        if not self.tree.subgroups:
            out["minMember"] = len(self.group.tasks)
        constraint = self._constraint(self.tree.required, self.tree.preferred)
        if len(constraint) > 1:
            out["topologyConstraint"] = constraint
        if self.tree.subgroups:
            out["subGroups"] = [self._subgroup(sg) for sg in self.tree.subgroups]
        return out

    def to_object(self, labels: Mapping[str, str] | None = None) -> dict[str, Any]:
        """The whole PodGroup object."""
        meta_labels = {**(labels or {}), QUEUE_LABEL: self.pool.queue, LEGACY_QUEUE_LABEL: self.pool.queue}
        return {
            "apiVersion": PODGROUP_API,
            "kind": "PodGroup",
            "metadata": {"name": self.name, "namespace": self.namespace, "labels": meta_labels},
            "spec": self.spec(),
        }

    def pod_metadata(self, task: str, workflow_labels: Mapping[str, str]) -> dict[str, Any]:
        """Labels and annotations of a task's pod. Scheduler labels are written last, so
        workflow labels with the same keys are overwritten; a stale subgroup label is dropped."""
        labels = {k: v for k, v in workflow_labels.items() if k != SUBGROUP_LABEL}
        labels.update(
            {
                "osmo.task_name": task,
                "osmo.group_name": self.group.name,
                POOL_LABEL: self.pool.name,
                QUEUE_LABEL: self.pool.queue,
                LEGACY_QUEUE_LABEL: self.pool.queue,
            }
        )
        subgroup = self.tree.task_subgroups.get(task)
        if subgroup is not None:
            labels[SUBGROUP_LABEL] = subgroup
        return {
            "name": task,
            "namespace": self.namespace,
            "labels": labels,
            "annotations": {PODGROUP_ANNOTATION: self.name},
        }

    def _constraint(self, required: str | None, preferred: str | None) -> dict[str, str]:
        out = {"topology": self.pool.topology_name}
        if required is not None:
            out["requiredTopologyLevel"] = required
        if preferred is not None:
            out["preferredTopologyLevel"] = preferred
        return out

    def _subgroup(self, sg: SubGroupSpec) -> dict[str, Any]:
        out: dict[str, Any] = {"name": sg.name}
        if sg.parent is not None:
            out["parent"] = sg.parent
        if sg.min_member is not None:
            out["minMember"] = sg.min_member
        out["topologyConstraint"] = (
            self._constraint(sg.level, None) if sg.required else self._constraint(None, sg.level)
        )
        return out


def topology_object(pool: Pool) -> dict[str, Any] | None:
    """The pool's KAI Topology (levels coarsest first), or None when topology is off."""
    if not pool.topology_keys:
        return None
    return {
        "apiVersion": TOPOLOGY_API,
        "kind": "Topology",
        "metadata": {
            "name": pool.topology_name,
            "labels": {NAMESPACE_LABEL: pool.backend.k8s_namespace, POOL_LABEL: pool.name},
        },
        "spec": {"levels": [{"nodeLabel": k.label} for k in pool.topology_keys]},
    }
