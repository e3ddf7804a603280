"""Nodes, taints and tolerations, and the pods that already use node capacity."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from types import MappingProxyType

from toposched.model.resources import EMPTY, Resources


class TaintEffect(StrEnum):
    NO_SCHEDULE = "NoSchedule"
    PREFER_NO_SCHEDULE = "PreferNoSchedule"
    NO_EXECUTE = "NoExecute"


class TolerationOperator(StrEnum):
    EQUAL = "Equal"
    EXISTS = "Exists"


@dataclass(frozen=True, slots=True)
class Taint:
    key: str
    value: str = ""
    effect: TaintEffect = TaintEffect.NO_SCHEDULE

    @property
    def blocks_scheduling(self) -> bool:
        """Only NoSchedule and NoExecute keep pods off a node; PreferNoSchedule is a hint."""
        return self.effect is not TaintEffect.PREFER_NO_SCHEDULE

    def __str__(self) -> str:
        return f"{self.key}={self.value}:{self.effect}" if self.value else f"{self.key}:{self.effect}"


@dataclass(frozen=True, slots=True)
class Toleration:
    """A Kubernetes toleration. Empty ``effect`` matches every effect; ``Exists`` with an empty key
    tolerates every taint."""

    key: str = ""
    operator: TolerationOperator = TolerationOperator.EQUAL
    value: str = ""
    effect: TaintEffect | None = None
    toleration_seconds: int | None = None

    def tolerates(self, taint: Taint) -> bool:
        if self.effect is not None and self.effect is not taint.effect:
            return False
        if self.operator is TolerationOperator.EXISTS:
            return not self.key or self.key == taint.key
        return self.key == taint.key and self.value == taint.value


def tolerates_all(tolerations: tuple[Toleration, ...], taints: tuple[Taint, ...]) -> Taint | None:
    """The first scheduling-blocking taint not tolerated, or None when the pod may use the node."""
    for taint in taints:
        if taint.blocks_scheduling and not any(t.tolerates(taint) for t in tolerations):
            return taint
    return None


def _frozen(labels: Mapping[str, str] | None) -> Mapping[str, str]:
    return MappingProxyType(dict(labels or {}))


@dataclass(frozen=True, slots=True)
class Node:
    """A node as the scheduler sees it. ``labels`` carry the topology levels."""

    name: str
    labels: Mapping[str, str] = field(default_factory=lambda: _frozen(None))
    allocatable: Resources = EMPTY
    taints: tuple[Taint, ...] = ()
    ready: bool = True
    unschedulable: bool = False

    @classmethod
    def create(
        cls,
        name: str,
        labels: Mapping[str, str] | None = None,
        allocatable: Resources = EMPTY,
        taints: tuple[Taint, ...] = (),
        *,
        ready: bool = True,
        unschedulable: bool = False,
    ) -> Node:
        return cls(name, _frozen(labels), allocatable, tuple(taints), ready, unschedulable)

    @property
    def schedulable(self) -> bool:
        """NotReady and cordoned nodes take no new pods and are left out of topology domains."""
        return self.ready and not self.unschedulable


# A topology level every node has: the node itself, valued by its hostname label, else by its
# name. The level of kube-scheduler's placement of a PodGroup without a constraint (every node,
# whatever its labels); a topology ending with it is read like one ending with the hostname.
# In toposched's own label prefix, so no cluster label means something else by it.
NODE_LEVEL = "toposched.io/node"
_HOSTNAME = "kubernetes.io/hostname"


def level_value(node: Node, key: str) -> str | None:
    """The node's value for a topology level: its label (``NODE_LEVEL``: see above)."""
    if key == NODE_LEVEL:
        return node.labels.get(_HOSTNAME, node.name)
    return node.labels.get(key)


@dataclass(frozen=True, slots=True)
class RunningPod:
    """A pod already bound to a node and not finished: its requests use that node's capacity.

    ``requests`` are the effective requests (containers summed, max'ed with init containers,
    plus overhead), without the ``pods`` slot, which the snapshot adds.
    """

    name: str
    namespace: str
    node: str
    requests: Resources = EMPTY
    owner: str = ""

    @property
    def workload(self) -> str:
        """The workload the pod belongs to: ``namespace/owner``, or ``namespace/name`` without one."""
        return f"{self.namespace}/{self.owner or self.name}"
