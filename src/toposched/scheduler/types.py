"""The scheduler's small value types: configuration, cycle and import reports, pod status."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from toposched.engine import DEFAULT_ROUND_SECONDS, DEFAULT_SECONDS, DEFAULT_STEPS, PlacementOptions
from toposched.model import (
    MAX_PODS_PER_GANG,
    MAX_RESERVATION_DEPTH,
    MAX_RUN_SECONDS,
    Gang,
    Problem,
    Quota,
    Search,
    SpecError,
    Topology,
)
from toposched.store import WorkloadRecord


@dataclass(frozen=True, slots=True)
class SchedulerConfig:
    """How the loop behaves. Times are in seconds of the injected clock."""

    # The service's choice of policy: over a front end's default, under a workload's own
    # (``PlacementOptions.policy_for``); None leaves it to them.
    policy: str | None = None
    search: Search = Search.COMPLETE  # faithful, else an exact search for gangs faithful refuses
    search_steps: int = DEFAULT_STEPS  # budget of one gang's complete search, in choices tried...
    search_seconds: float = DEFAULT_SECONDS  # ...and in seconds of the search clock
    round_seconds: float = DEFAULT_ROUND_SECONDS  # the exact searches of one cycle, together
    explain_seconds: float = 5.0  # one explanation, all its searches and suggestions (injected clock)
    node_grace_seconds: float = 30.0  # NotReady longer than this -> node failed for its gangs
    replace_on_pod_termination: bool = False  # NotReady + all the gang's pods there ended -> failed at once
    backoff_base_seconds: float = 1.0
    backoff_max_seconds: float = 60.0  # the longest wait between two attempts, however many failed
    max_pods: int = MAX_PODS_PER_GANG  # pods one workload may have; larger submissions are refused (422)
    # Each user's pending work at most, unless the store holds a quota of their own (429 past
    # it); None: no bound but users' own quotas (the service sets one, the simulator none).
    quota: Quota | None = None
    # A pending gang that does not fit evicts whole gangs the preemption rule allows (by default
    # of lower priority), fewest GPU-hours lost (``preemption``).
    preemption: bool = True
    # The first gang of a cycle that does not fit reserves where it fits soonest; later gangs use
    # those nodes only when they end before it starts (``reservations``).
    reservations: bool = True
    # How many refused gangs of a cycle hold a reservation, each on nodes of its own: 1 is
    # Slurm's EASY backfill (only the first is protected); more protect each of that many.
    reservation_depth: int = 1
    # A gang refused only because the queues of its tree leave too little unused reserves as a
    # gang refused for room does (off: it waits for quota while narrower gangs pass it; on by
    # default since it lowers the p95 wait of gangs of 64+ GPUs in replays, README).
    quota_reservations: bool = True
    default_run_seconds: float = 3600.0  # the run time of a gang that declares none
    aging_seconds: float | None = 3600.0  # one priority step per this much waiting (None: no aging)
    gpu_resource: str = "nvidia.com/gpu"  # whose time preemption counts as lost

    def __post_init__(self) -> None:
        self.options()  # SpecError naming the field of a bad search setting
        if not 0 < self.default_run_seconds <= MAX_RUN_SECONDS:
            raise SpecError(
                [
                    Problem(
                        "default_run_seconds",
                        f"{self.default_run_seconds:g}",
                        f"use a number of seconds above 0 and at most {MAX_RUN_SECONDS:.0f}",
                    )
                ]
            )
        if not 1 <= self.reservation_depth <= MAX_RESERVATION_DEPTH:
            raise SpecError(
                [
                    Problem(
                        "reservation_depth",
                        f"{self.reservation_depth}",
                        f"use a whole number from 1 to {MAX_RESERVATION_DEPTH}",
                    )
                ]
            )
        if self.aging_seconds is not None and not 0 < self.aging_seconds < float("inf"):
            raise SpecError(
                [
                    Problem(
                        "aging_seconds",
                        f"{self.aging_seconds:g}",
                        "use a finite number of seconds above 0, or none to turn aging off",
                    )
                ]
            )
        if not 0 < self.explain_seconds < float("inf"):
            raise SpecError(
                [
                    Problem(
                        "explain_seconds",
                        f"{self.explain_seconds:g}",
                        "use a finite number of seconds above 0",
                    )
                ]
            )
        if not 0 <= self.backoff_base_seconds <= self.backoff_max_seconds < float("inf"):
            raise SpecError(
                [
                    Problem(
                        "backoff_max_seconds",
                        f"{self.backoff_max_seconds:g} with a base of {self.backoff_base_seconds:g}",
                        "use a finite maximum no smaller than the base, and a base of 0 or more",
                    )
                ]
            )

    def options(self) -> PlacementOptions:
        """The placement options of the loop's sessions."""
        return PlacementOptions(
            search=self.search,
            steps=self.search_steps,
            seconds=self.search_seconds,
            round_seconds=self.round_seconds,
            policy=self.policy,
        )


@dataclass(frozen=True, slots=True)
class Submission:
    """A validated submission not stored yet (``Scheduler.prepare``): the record to store (with
    the topologies the spec itself brought), and the topology and gang it compiled to, which the
    loop reuses."""

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
    searching: tuple[int, ...] = ()  # of the unschedulable: their complete search goes on next cycle


@dataclass(slots=True)
class LoopHealth:
    """How the loop is doing (``Scheduler.health``): when the last cycle ended (clock time, None
    before the first), the error that stopped the last failed cycle and when, and the workloads
    marked broken now (id -> reason): each failed in a way only an operator can fix, and is
    retried after its backoff while the others keep scheduling."""

    last_cycle_at: float | None = None
    last_error: str | None = None
    last_error_at: float | None = None
    broken: dict[int, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class ImportReport:
    """What ``Scheduler.import_cluster`` stored, and what it skipped or found suspicious:
    the nodes and external pods (``namespace/name``) a full replace removed, and the nodes left
    with less capacity than is booked on them (their gangs are replaced or evicted)."""

    nodes: int
    pods: int
    topologies: tuple[str, ...]
    warnings: tuple[str, ...] = ()
    removed_nodes: tuple[str, ...] = ()
    removed_pods: tuple[str, ...] = ()
    overbooked: tuple[str, ...] = ()


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
