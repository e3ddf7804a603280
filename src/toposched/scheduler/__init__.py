"""The scheduler loop: queue, admission, release, node failures and taints, on an injected clock.

``Scheduler`` is the service the API and the CLI drive; it receives parsed documents and compiles
them through the front-end registry (``toposched.frontends.registry``).
"""

from toposched.scheduler.clock import Clock, ManualClock, SystemClock
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
    "CycleReport",
    "EventType",
    "ImportReport",
    "LoopHealth",
    "ManualClock",
    "PodStatus",
    "Scheduler",
    "SchedulerConfig",
    "Submission",
    "SystemClock",
]
