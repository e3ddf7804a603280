"""Node failures to inject: a seeded random schedule of NotReady and Ready-again times.

Each node fails as a Poisson process (``node_failures_per_day``) while it is up, and stays down
for an exponentially distributed time (mean ``recovery_seconds``). The same seed and nodes give
the same schedule, so a replay with failures is as reproducible as one without.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import dataclass

from toposched.sim.config import FailureSettings

DAY = 86_400.0


@dataclass(frozen=True, slots=True, order=True)
class NodeChange:
    """At ``time``, node ``node`` becomes NotReady (``ready`` False) or Ready again."""

    time: float
    node: str
    ready: bool


def failure_schedule(nodes: Iterable[str], settings: FailureSettings, horizon: float) -> list[NodeChange]:
    """Every node change before ``horizon`` seconds, in time order (empty at rate 0)."""
    rate = settings.node_failures_per_day / DAY
    if rate <= 0:
        return []
    rng = random.Random(settings.seed)
    changes: list[NodeChange] = []
    for node in sorted(nodes):
        at = rng.expovariate(rate)
        while at < horizon:
            changes.append(NodeChange(at, node, False))
            at += rng.expovariate(1.0 / settings.recovery_seconds)
            changes.append(NodeChange(at, node, True))  # may fall past the horizon: the node comes back
            at += rng.expovariate(rate)
    changes.sort()
    return changes
