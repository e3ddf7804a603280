"""The Kubernetes objects OSMO makes for KAI: one PodGroup per task group, pod metadata, and one
Topology per pool, shaped by ``toposched.wire.kai``."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from toposched.frontends.osmo.pool import Pool
from toposched.frontends.osmo.tree import SubGroupSpec, TopologyTree
from toposched.frontends.osmo.workflow import TaskGroup
from toposched.wire.kai import (
    NO_CONSTRAINT,
    POD_GROUP_ANNOTATION,
    QUEUE_LABEL,
    SUBGROUP_LABEL,
    PodGroup,
    SubGroup,
    TopologyConstraint,
)
from toposched.wire.kai import topology_object as kai_topology

LEGACY_QUEUE_LABEL = "runai/queue"  # read by KAI before v0.6
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

    def to_object(self, labels: Mapping[str, str] | None = None) -> dict[str, Any]:
        """The whole PodGroup object. ``minMember`` only without subgroups (then leaves carry it);
        the constraint only when the tree constrains the whole group."""
        tree = self.tree
        constrained = tree.required is not None or tree.preferred is not None
        podgroup = PodGroup(
            name=self.name,
            namespace=self.namespace,
            min_member=None if tree.subgroups else len(self.group.tasks),
            queue=self.pool.queue,
            priority_class_name=self.priority.class_name,
            constraint=self._constraint(tree.required, tree.preferred) if constrained else NO_CONSTRAINT,
            sub_groups=tuple(self._subgroup(sg) for sg in tree.subgroups),
            labels={**(labels or {}), QUEUE_LABEL: self.pool.queue, LEGACY_QUEUE_LABEL: self.pool.queue},
        )
        return podgroup.to_object()

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
            "annotations": {POD_GROUP_ANNOTATION: self.name},
        }

    def _constraint(self, required: str | None, preferred: str | None) -> TopologyConstraint:
        return TopologyConstraint(self.pool.topology_name, required or "", preferred or "")

    def _subgroup(self, sg: SubGroupSpec) -> SubGroup:
        constraint = self._constraint(sg.level, None) if sg.required else self._constraint(None, sg.level)
        return SubGroup(sg.name, sg.parent, min_member=sg.min_member, constraint=constraint)


def topology_object(pool: Pool) -> dict[str, Any] | None:
    """The pool's KAI Topology (levels coarsest first), or None when topology is off."""
    if not pool.topology_keys:
        return None
    labels = {NAMESPACE_LABEL: pool.backend.k8s_namespace, POOL_LABEL: pool.name}
    return kai_topology(pool.topology_name, [k.label for k in pool.topology_keys], labels=labels)
