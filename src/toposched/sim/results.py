"""What one replay records: per job, over time, and the safety checks. Plain data, so a replay
run in another process hands it back pickled."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(slots=True)
class JobRecord:
    """One trace job through the replay (times in trace seconds)."""

    index: int
    gpus: int
    submitted: float
    queue: str | None = None  # the team queue the trace names
    carried: bool = False  # running when the window started: not part of the job figures
    workload: int = 0  # the scheduler's workload id
    admitted: float | None = None  # first admission
    finished: float | None = None
    evictions: int = 0
    replacements: int = 0
    preferred: bool | None = None  # None: no preferred request; else whether its level was met


@dataclass(slots=True)
class Series:
    """Values sampled after every scheduling cycle."""

    time: list[float] = field(default_factory=list)
    used_gpus: list[int] = field(default_factory=list)
    fragmented_gpus: list[int] = field(default_factory=list)
    pending: list[int] = field(default_factory=list)


@dataclass(slots=True)
class ReplayResult:
    """Everything one policy's replay produced."""

    policy: str
    total_gpus: int
    jobs: list[JobRecord]
    series: Series
    admissions: list[int]  # job indexes in the order the scheduler admitted them (re-admissions too)
    seed: int = 0  # the replication's seed
    end: float = 0.0  # virtual time of the last event handled
    last_arrival: float = 0.0  # virtual time of the last job submitted
    cycles: int = 0
    node_failures: int = 0
    overcommits: list[str] = field(default_factory=list)
    lost: list[str] = field(default_factory=list)  # jobs whose scheduler state disagrees with the replay
    cpu_seconds: float = 0.0
