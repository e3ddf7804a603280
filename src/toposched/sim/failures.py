"""Node failures to inject: a seeded random schedule of NotReady and Ready-again times.

Each node fails as a Poisson process (``node_failures_per_day``) while it is up, and stays down
for an exponentially distributed time (mean ``recovery_seconds``). The schedule is drawn as the
replay consumes it, one pending change per node, so its memory does not grow with the trace's
span; the same seed and nodes give the same schedule, so every policy's replay sees the same
failures. How many failures a span will bring is known beforehand (``expected_failures``), and
``FailurePlan.check`` refuses a span that would bring more than ``max_failures``.
"""

from __future__ import annotations

import heapq
import random
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from toposched.model import Problem, SpecError
from toposched.sim.config import FailureSettings

DAY = 86_400.0


@dataclass(frozen=True, slots=True, order=True)
class NodeChange:
    """At ``time``, node ``node`` becomes NotReady (``ready`` False) or Ready again."""

    time: float
    node: str
    ready: bool


@dataclass(frozen=True, slots=True)
class FailurePlan:
    """Failures of ``nodes`` from ``start`` until ``horizon`` seconds (the trace's span)."""

    nodes: tuple[str, ...]
    settings: FailureSettings
    start: float
    horizon: float

    @classmethod
    def of(cls, nodes: Iterable[str], settings: FailureSettings, start: float, horizon: float) -> FailurePlan:
        return cls(tuple(sorted(nodes)), settings, start, horizon)

    def expected_failures(self) -> float:
        """Failures the span brings on average: at most one per ``1 / rate`` while a node is up."""
        span = max(0.0, self.horizon - self.start)
        return len(self.nodes) * self.settings.node_failures_per_day / DAY * span

    def check(self, why: str) -> None:
        """``SpecError`` when the plan is expected to pass ``max_failures``; ``why`` says what set
        the horizon (the trace's last job, ``--until``)."""
        expected, limit = self.expected_failures(), self.settings.max_failures
        if expected <= limit:
            return
        raise SpecError(
            [
                Problem(
                    "failures.node_failures_per_day",
                    f"{len(self.nodes)} nodes failing {self.settings.node_failures_per_day:g} times a day"
                    f" until {self.horizon:g} s ({why}) make about {expected:.3g} failures;"
                    f" the limit is {limit} (failures.max_failures)",
                    "replay a shorter span (--until, --limit-jobs, or drop far-off rows),"
                    " lower the rate, or raise failures.max_failures",
                )
            ]
        )

    def changes(self) -> Iterator[NodeChange]:
        """Every node change in time order (none at rate 0): a failure before the horizon and
        its recovery, which may fall past it (the node comes back)."""
        rate = self.settings.node_failures_per_day / DAY
        if rate <= 0 or not self.nodes:
            return
        rng = random.Random(self.settings.seed)
        pending: list[NodeChange] = []  # one per node: its next change
        for node in self.nodes:
            at = self.start + rng.expovariate(rate)
            if at < self.horizon:
                pending.append(NodeChange(at, node, False))
        heapq.heapify(pending)
        recovery = 1.0 / self.settings.recovery_seconds
        while pending:
            change = heapq.heappop(pending)
            yield change
            if not change.ready:
                heapq.heappush(
                    pending, NodeChange(change.time + rng.expovariate(recovery), change.node, True)
                )
                continue
            at = change.time + rng.expovariate(rate)
            if at < self.horizon:
                heapq.heappush(pending, NodeChange(at, change.node, False))
