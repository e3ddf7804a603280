"""The scheduler's small value types: configuration, cycle and import reports, pod status."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from toposched.model import MAX_PODS_PER_GANG, Gang, Policy, Topology
from toposched.store import WorkloadRecord


@dataclass(frozen=True, slots=True)
class SchedulerConfig:
    """How the loop behaves. Times are in seconds of the injected clock."""

    policy: Policy = Policy.MIXED  # used when the front end sets no policy of its own
    node_grace_seconds: float = 30.0  # NotReady longer than this -> node failed for its gangs
    replace_on_pod_termination: bool = False  # NotReady + all the gang's pods there ended -> failed at once
    backoff_base_seconds: float = 1.0
    backoff_max_seconds: float = 60.0
    max_pods: int = MAX_PODS_PER_GANG  # pods one workload may have; larger submissions are refused (422)


@dataclass(frozen=True, slots=True)
class Submission:
    """A validated submission not stored yet (``Scheduler.prepare``): the record to store, and
    the topology and gang it compiled to, which the loop reuses."""

    record: WorkloadRecord
    topology: Topology
    gang: Gang


@dataclass(frozen=True, slots=True)
class CycleReport:
    """Workload ids touched by one cycle, each in the order it was handled."""

    admitted: tuple[int, ...] = ()
    unschedulable: tuple[int, ...] = ()
    evicted: tuple[int, ...] = ()
    replaced: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class ImportReport:
    """What ``Scheduler.import_cluster`` stored, and what it skipped or found suspicious."""

    nodes: int
    pods: int
    topologies: tuple[str, ...]
    warnings: tuple[str, ...] = ()


class PodStatus(StrEnum):
    """What is known about one pod of an admitted gang. Pods count as bound (``Running``) once
    their gang is admitted, until told otherwise."""

    PENDING = "Pending"  # not scheduled (no node bound), e.g. kept off by a taint
    RUNNING = "Running"
    FAILED = "Failed"
    TERMINATING = "Terminating"

    @property
    def ended(self) -> bool:
        """Terminated or on its way out: the pod no longer holds its node."""
        return self in (PodStatus.FAILED, PodStatus.TERMINATING)

    @property
    def not_progressing(self) -> bool:
        """Failed, terminating or unscheduled (the seed's test for NoSchedule taints and cordons)."""
        return self is not PodStatus.RUNNING


class EventType(StrEnum):
    """The ``type`` of every event the scheduler writes."""

    SUBMITTED = "submitted"
    ADMITTED = "admitted"
    STARTED = "started"
    UNSCHEDULABLE = "unschedulable"
    INVALID = "invalid spec"
    NODE_FAILED = "node failed"
    NODE_REPLACED = "node replaced"
    EVICTED = "evicted"
    CANCELLED = "cancelled"
    FINISHED = "finished"
    POD_STATUS = "pod status"
    NODE = "node"  # a node's readiness, taints or cordon changed (or it was deleted)
    CLUSTER_IMPORTED = "cluster imported"
