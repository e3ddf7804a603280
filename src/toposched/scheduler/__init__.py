"""The scheduler loop: queue, admission, release, node failures and taints, on an injected clock.

``Scheduler`` is the service the API and the CLI drive; it receives parsed documents and compiles
them through the front-end registry (``toposched.frontends.registry``).
"""

from toposched.engine import PolicyRegistry, builtin_policies  # the policies a Scheduler knows by default
from toposched.scheduler.clock import Clock, CpuClock, ManualClock, SystemClock
from toposched.scheduler.preemption import Contender, LowerPriority, PreemptionRule
from toposched.scheduler.queue_status import QueueStatus
from toposched.scheduler.scheduler import Scheduler
from toposched.scheduler.types import (
    CycleReport,
    EventType,
    ImportReport,
    LoopHealth,
    PodStatus,
    SchedulerConfig,
    Submission,
)

__all__ = [
    "Clock",
    "Contender",
    "CpuClock",
    "CycleReport",
    "EventType",
    "ImportReport",
    "LoopHealth",
    "LowerPriority",
    "ManualClock",
    "PodStatus",
    "PolicyRegistry",
    "PreemptionRule",
    "QueueStatus",
    "Scheduler",
    "SchedulerConfig",
    "Submission",
    "SystemClock",
    "builtin_policies",
]
