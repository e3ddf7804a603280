"""The scheduler loop: queue, admission, release, node failures and taints, on an injected clock.

``Scheduler`` is the service the API and the CLI drive; ``codec`` turns what it stores into JSON;
``intake`` picks the front end for a submitted spec.
"""

from toposched.scheduler.clock import Clock, ManualClock, SystemClock
from toposched.scheduler.intake import FrontEnd, Intake, default_intake
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
    "FrontEnd",
    "ImportReport",
    "Intake",
    "LoopHealth",
    "ManualClock",
    "PodStatus",
    "Scheduler",
    "SchedulerConfig",
    "Submission",
    "SystemClock",
    "default_intake",
]
